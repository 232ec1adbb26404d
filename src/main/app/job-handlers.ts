// Jobs and the queue: run.submit (journaled before and after the server answers; on the active
// server, or over the pool: pool-run.ts), jobs.list (the journal merged with what the live
// trackers know, the pool servers' too), jobs.cancel and jobs.checkAgain (on the job's own
// server), queue.*, and the files of jobs (output.fetch, only files a job really produced; input.fetch).
import type { CallHandlers, JobSnapshotView } from '@shared/ipc/contract';
import { isJsonObject, parseJsonExact, type JsonObject } from '@shared/json';
import type { JobRecord, JobStore } from '@main/jobs/job-store';
import { submitJob } from '@main/jobs/submit-job';
import { isTerminalPhase } from '@main/jobs/types';
import { ServiceError } from '@main/service/errors';
import type { ServiceApi } from '@main/service/ports';
import type { ServerProfile } from '@main/service/types';
import { interpretWorkflow } from '@main/workflow/parse';
import { editorGraphForRun } from '@main/workflow/values-that-ran';
import type { LogLevel } from './ports';
import { AppFailure } from './errors';
import type { LivePool } from './live-pool';
import type { OutputCache } from './output-cache';
import { submitToPool } from './pool-run';
import { errorView, type ProfileSession } from './session';
import type { JobSnapshot } from '@main/jobs/types';
import { describeError } from '@shared/describe-error';

export type JobCallName =
  | 'run.submit'
  | 'jobs.list'
  | 'jobs.cancel'
  | 'jobs.checkAgain'
  | 'queue.get'
  | 'queue.cancel'
  | 'queue.interrupt'
  | 'queue.clearPending'
  | 'output.fetch'
  | 'input.fetch';

export interface JobHandlerContext {
  now(): number;
  log(level: LogLevel, message: string): void;
  /** The active session, if any (no waiting). */
  session(): ProfileSession | null;
  requireSession(): Promise<ProfileSession>;
  requireJobs(): JobStore;
  /** A REST client for a job's server: the session's when it is that server, else a short-lived one. */
  withServerApi<T>(server: ServerProfile, profileId: string | null, use: (api: ServiceApi) => Promise<T>): Promise<T>;
  outputs: OutputCache;
  /** The pool (opened when none is open yet); null when no server of the pool can be used. */
  usePool(): Promise<LivePool | null>;
  /** The pool if one is open (no opening). */
  currentPool(): LivePool | null;
  /** Whether a pool is set in Servers (pool settings). */
  poolIsSet(): boolean;
  /** Where images are copied through on their way to another pool server. */
  poolTempDir: string;
  /** Tells the user (app.notice): a pool run that failed after run.submit answered. */
  notify(message: string): void;
}

/** A journaled job as the renderer sees it (live details such as step progress are not journaled). */
export function recordView(record: JobRecord): JobSnapshotView {
  return {
    promptId: record.promptId,
    profileId: record.profileId,
    label: record.workflowName ?? 'workflow',
    origin: record.origin,
    phase: record.phase === 'submitting' ? 'pending' : record.phase,
    status: record.rawStatus ?? record.phase,
    submittedAt: record.createdAt,
    updatedAt: record.updatedAt,
    finishedAt: record.endedAt,
    currentNode: record.progress?.currentNode ?? null,
    progress: null,
    overall: record.progress?.nodesTotal ? Math.min(1, record.progress.nodesDone / record.progress.nodesTotal) : null,
    nodesDone: record.progress?.nodesDone ?? 0,
    nodesTotal: record.progress?.nodesTotal ?? null,
    progressText: null,
    outputs: record.outputs.map((o) => ({ filename: o.filename, subfolder: o.subfolder, type: o.type, node: o.node, key: o.key })),
    error: record.error ? errorView(record.error) : null,
  };
}

/** The editor graph sent with a run (exact JSON text), checked at the boundary. */
function editorGraphOf(uiWorkflowJson: string | undefined): JsonObject | null {
  if (uiWorkflowJson === undefined) return null;
  let graph: unknown;
  try {
    graph = parseJsonExact(uiWorkflowJson);
  } catch (error) {
    throw new AppFailure('invalid_input', `The editor graph sent with the workflow is not valid JSON: ${describeError(error)}`);
  }
  if (!isJsonObject(graph)) throw new AppFailure('invalid_input', 'The editor graph sent with the workflow is not a JSON object.');
  return graph;
}

export function createJobHandlers(ctx: JobHandlerContext): Pick<CallHandlers, JobCallName> {
  /** The live connections: the active session, then the open pool's others. */
  const liveSessions = (): ProfileSession[] => {
    const active = ctx.session();
    const others =
      ctx
        .currentPool()
        ?.allSessions()
        .filter((s) => s !== active) ?? [];
    return active ? [active, ...others] : others;
  };

  /** The connection whose tracker follows a job, with what it knows. */
  const liveJob = (promptId: string): { session: ProfileSession; snapshot: JobSnapshot } | null => {
    for (const session of liveSessions()) {
      const snapshot = session.tracker.get(promptId);
      if (snapshot) return { session, snapshot };
    }
    return null;
  };

  /** The freshest view of a job: the live tracker's when one follows it, else the journal's. */
  const findJob = async (promptId: string): Promise<{ view: JobSnapshotView; record: JobRecord | null; session: ProfileSession | null }> => {
    const record = await ctx.requireJobs().get(promptId);
    const live = liveJob(promptId);
    if (live) return { view: live.session.view(live.snapshot), record, session: live.session };
    if (record) return { view: recordView(record), record, session: null };
    throw new AppFailure('not_found', `There is no job ${promptId}.`);
  };

  /** The server a job ran on: the journal's record, else the active one. */
  const serverOf = (promptId: string, record: JobRecord | null): ServerProfile => {
    const server: ServerProfile | null = record ? { kind: record.serverKind, baseUrl: record.baseUrl } : (ctx.session()?.server ?? null);
    if (!server) throw new AppFailure('not_found', `Job ${promptId} belongs to no known server.`);
    return server;
  };

  return {
    'run.submit': async ({ workflowJson, repeat, label, uiWorkflowJson, target }) => {
      let value: unknown;
      try {
        value = parseJsonExact(workflowJson);
      } catch (error) {
        throw new AppFailure('invalid_workflow', `The workflow is not valid JSON: ${describeError(error)}`, { errorType: 'invalid_json', nodeErrors: [] });
      }
      const parsed = interpretWorkflow(value);
      if (!parsed.ok) throw new AppFailure('invalid_workflow', parsed.message, { errorType: parsed.reason, nodeErrors: [] });
      const active = await ctx.requireSession();
      const store = ctx.requireJobs();
      const workflow = parsed.workflow;
      // The graph kept with the outputs shows the values that ran (edited in the form), not the file's.
      const editorGraph = await editorGraphForRun(
        editorGraphOf(uiWorkflowJson),
        workflow,
        () => active.nodeDefinitions(),
        (message) => ctx.log('warn', message),
      );
      if (target === 'pool') {
        if (!ctx.poolIsSet()) throw new AppFailure('invalid_input', 'No pool is set. Add servers to the pool in Servers, or run on the active server.');
        const pool = await ctx.usePool();
        if (!pool)
          throw new AppFailure(
            'invalid_input',
            'The pool has no server that can be used. Check its servers in Servers (each with its key), or run on the active server.',
          );
        return submitToPool({
          pool,
          active,
          jobs: store,
          workflow,
          workflowName: label ?? null,
          editorGraph,
          repeat: repeat ?? 1,
          tempDir: ctx.poolTempDir,
          log: ctx.log,
          notify: ctx.notify,
        });
      }
      const promptIds: string[] = [];
      for (let i = 0; i < (repeat ?? 1); i += 1) {
        let result;
        try {
          result = await submitJob(
            { api: active.api, jobs: store, clientId: active.events.clientId, profileId: active.profileId },
            { workflow, workflowName: label ?? null, origin: 'window', editorGraph },
          );
        } catch (error) {
          if (error instanceof ServiceError && error.kind === 'subscription_inactive') active.subscriptionActive = false;
          // Jobs already accepted go on; report them rather than the failure of a later repeat.
          if (promptIds.length > 0) {
            ctx.log('warn', `run ${i + 1} of ${repeat ?? 1} was not accepted: ${describeError(error)}`);
            break;
          }
          throw error;
        }
        active.subscriptionActive = true;
        active.tracker.track(result.promptId, { workflow, workflowName: label ?? null, origin: 'window' });
        promptIds.push(result.promptId);
      }
      active.refreshQueueSoon();
      return { promptIds };
    },

    'jobs.list': async () => {
      const records = await ctx.requireJobs().list({ limit: 500 });
      const byId = new Map<string, JobSnapshotView>(records.map((r) => [r.promptId, recordView(r)]));
      for (const session of liveSessions()) {
        for (const live of session.tracker.list()) {
          const view = session.view(live);
          byId.set(live.promptId, { ...view, origin: view.origin ?? byId.get(live.promptId)?.origin ?? null });
        }
      }
      return { jobs: [...byId.values()].sort((a, b) => b.submittedAt - a.submittedAt) };
    },

    'jobs.cancel': async ({ promptId, stopAllRunning }) => {
      const { view, record, session: following } = await findJob(promptId);
      if (isTerminalPhase(view.phase)) return { cancelled: false };
      const server = serverOf(promptId, record);
      // A waiting job is deleted from the queue. A running one is interrupted by its id where the
      // server takes one; on the cloud interrupt stops ALL of the account's running jobs, so with
      // others running nothing is stopped until the user agrees (stopAllRunning).
      const outcome = await ctx.withServerApi(server, view.profileId, (api) => api.stopJob(promptId, { stopOthers: stopAllRunning === true }));
      if (outcome.kind === 'would_stop_others') return { cancelled: false, stopsAllRunning: outcome.running };
      // The tracker of the job's own server (a pool server's, for a job the pool sent there).
      const session = following ?? ctx.session();
      session?.tracker.noteCancelRequested(promptId);
      session?.refreshQueueSoon();
      return { cancelled: true };
    },

    'jobs.checkAgain': async ({ promptId }) => {
      // Asked of the job's own server: the pool server's tracker when one follows it.
      const session = liveJob(promptId)?.session ?? ctx.session();
      const live = await session?.tracker.checkAgain(promptId);
      if (live && session) return session.view(live);
      return (await findJob(promptId)).view;
    },

    'queue.get': async () => (await ctx.requireSession()).queue(),

    'queue.cancel': async ({ promptIds }) => {
      const active = await ctx.requireSession();
      const { stillRunning } = await active.api.cancel(promptIds);
      for (const promptId of promptIds) if (!stillRunning.includes(promptId)) active.tracker.noteCancelRequested(promptId);
      if (stillRunning.length > 0) {
        // The cloud cancels waiting jobs only; stopping a running one stops all of them.
        active.refreshQueueSoon();
        const n = stillRunning.length;
        throw new AppFailure(
          'invalid_input',
          `${n === 1 ? 'One selected job is' : `${n} selected jobs are`} running; the others were cancelled. The service cannot stop one running job alone: "Interrupt" stops every running job of the account.`,
        );
      }
      return active.queue();
    },

    'queue.interrupt': async (input) => {
      const active = await ctx.requireSession();
      await active.api.interrupt(input?.promptId);
      return active.queue();
    },

    'queue.clearPending': async () => {
      const active = await ctx.requireSession();
      await active.clearPending();
      return active.queue();
    },

    'output.fetch': async ({ promptId, file }) => {
      const same = (o: { filename: string; subfolder: string; type: string }): boolean =>
        o.filename === file.filename && o.subfolder === file.subfolder && o.type === file.type;
      const found = await findJob(promptId).catch((error: unknown) => {
        if (error instanceof AppFailure && error.code === 'not_found') return null;
        throw error;
      });
      if (!found) {
        // A job only the active server knows (another client's, listed by the History view): its
        // own history must name the file.
        const active = await ctx.requireSession();
        const history = await active.api.getHistory(promptId);
        if (!history?.outputs.some(same)) throw new AppFailure('not_found', `There is no job ${promptId} with an output ${file.filename}.`);
        return ctx.outputs.fetch(active.api, file);
      }
      const { view, record } = found;
      // Only files the job actually produced: the renderer cannot make main fetch anything else.
      if (!view.outputs.some(same)) throw new AppFailure('not_found', `Job ${promptId} has no output ${file.filename}.`);
      return ctx.withServerApi(serverOf(promptId, record), view.profileId, (api) => ctx.outputs.fetch(api, file));
    },

    'input.fetch': async ({ name, subfolder, type }) => {
      const active = await ctx.requireSession();
      return ctx.outputs.fetch(active.api, { filename: name, subfolder, type });
    },
  };
}

// One CLI connection to a server: the REST client, the events socket, the job tracker and the job
// journal in the data folder, opened together and closed together.
import { heldUnconfirmedSends } from '@main/watch/journal';
import { mkdirSync } from 'node:fs';
import { JobStore } from '@main/jobs/job-store';
import { submitJob } from '@main/jobs/submit-job';
import { describeJobFailure } from '@main/jobs/failure-text';
import type { Store } from '@main/store/store';
import { JobTimeoutError, JobTracker, ServerUnreachableError } from '@main/jobs/tracker';
import type { Library } from '../main/library';
import type { JobSnapshot } from '@main/jobs/types';
import type { ServiceApi } from '@main/service/ports';
import { connectService } from '@main/service/v2/connect';
import { resendUnanswered } from '@main/jobs/submit-v2';
import { safeBaseName } from '@main/service/filenames';
import type { ImageMime, JobPhase, OutputFile, ServerProfile, Workflow } from '@main/service/types';
import type { JsonObject } from '@shared/json';
import { lastContractAt, rememberContract } from './contract-memory';
import { CLI_LIBRARY_RETRY, openCliLibrary } from './cli-library';
import { openCliStore } from './open-store';
import type { ProgressView } from './progress';

export interface JobOutcome {
  /** 'unknown': the server stopped answering (limits.ts unreachableAfterMs) before the job ended. */
  phase: JobPhase | 'timeout' | 'unknown';
  outputs: OutputFile[];
  /** A plain-language account of a failure, cancellation or timeout; null on success. */
  errorText: string | null;
}

export interface FollowOptions {
  timeoutMs: number | null;
  onProgress(view: ProgressView): void;
  onPreview?: ((index: number, mime: ImageMime, bytes: Uint8Array) => Promise<void>) | undefined;
}

export interface SessionOptions {
  /** The library folder (connection.ts libraryDirOf: the one the app uses too). */
  libraryDir: string;
  /** The settings profile of the server, recorded with library items. */
  profileId?: string | null;
  /** Told when the library cannot be opened (the run goes on without it). */
  warn?: (message: string) => void;
  /** Told when a request has waited a while for its answer ("waiting for … to answer /api/prompt"). */
  onWait?: (message: string) => void;
  /** What the profile says of the contract (v2 for serverless and proxy profiles) and a proxy's server API. */
  connection?: { contract?: 'v2'; v1BaseUrl?: string } | undefined;
}

export interface CliSession {
  readonly api: ServiceApi;
  /** The outputs library (downloads of this server only); null when it could not be opened. */
  readonly library: Library | null;
  readonly profileId: string | null;
  /** `editorGraph`: the UI graph the workflow came from, sent to servers that embed it in their outputs. */
  submit(workflow: Workflow, workflowName: string, editorGraph?: JsonObject | null): Promise<string>;
  follow(promptId: string, options: FollowOptions): Promise<JobOutcome>;
  safeName(serverName: string): string;
  close(): Promise<void>;
}

/** "running (node 1 DemoSampler, step 12/200; 0 of 2 nodes done)": what was last known of a job. */
export function lastKnownState(snapshot: JobSnapshot, workflow: Workflow): string {
  const parts: string[] = [];
  const current = snapshot.currentNode;
  if (current) {
    const classType = (workflow[current] as { class_type?: unknown } | undefined)?.class_type;
    const node = snapshot.nodes[current];
    const step = node && node.max > 1 ? `, step ${node.value}/${node.max}` : '';
    parts.push(`node ${current}${typeof classType === 'string' ? ` ${classType}` : ''}${step}`);
  }
  if (snapshot.nodesTotal !== null) parts.push(`${snapshot.nodesDone} of ${snapshot.nodesTotal} nodes done`);
  return parts.length > 0 ? `${snapshot.phase} (${parts.join('; ')})` : snapshot.phase;
}

function progressView(snapshot: JobSnapshot, previews: number, workflow: Workflow): ProgressView {
  const current = snapshot.currentNode;
  const node = current ? snapshot.nodes[current] : undefined;
  const classType = current ? (workflow[current] as { class_type?: unknown } | undefined)?.class_type : undefined;
  const texts = Object.values(snapshot.progressText);
  return {
    phase: snapshot.phase,
    nodesDone: snapshot.nodesDone,
    nodesTotal: snapshot.nodesTotal,
    currentNode: current,
    currentNodeClass: typeof classType === 'string' ? classType : null,
    step: node && node.max > 1 ? { value: node.value, max: node.max } : null,
    previews,
    text: texts.length > 0 ? texts[texts.length - 1]! : null,
  };
}

function openLibrary(store: Store, api: ServiceApi, server: ServerProfile, options: SessionOptions): Promise<Library | null> {
  return openCliLibrary({ store, root: options.libraryDir, source: (s) => (s.baseUrl === server.baseUrl ? api : null), retry: CLI_LIBRARY_RETRY }, (reason) =>
    options.warn?.(`The outputs library cannot be used (${reason}); outputs are saved to the output folder only.`),
  );
}

export async function openSession(server: ServerProfile, key: string | null, dataDir: string, options: SessionOptions): Promise<CliSession> {
  mkdirSync(dataDir, { recursive: true });
  const apiKey = (): string | null => key;
  // Which contract the server speaks is found out here, without side effects (v2/discover.ts);
  // what the last run found at this address only lets discovery ask its questions at once.
  const lastContract = lastContractAt(dataDir, server.baseUrl);
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  // The store opens (SQLite's own thread) while discovery waits for the server: a round trip less
  // before the first job. Its failure is reported after discovery's, as when they ran in turn.
  const opening = openCliStore(dataDir, warn);
  opening.catch(() => undefined);
  const connected = await connectService(server, {
    apiKey,
    lastContract,
    ...(options.onWait ? { onWait: options.onWait } : {}),
    ...(options.connection ?? {}),
  }).catch(async (error: unknown) => {
    await opening.then((store) => store.close()).catch(() => undefined);
    throw error;
  });
  const { api, events } = connected;
  if (api.capabilities.contract !== lastContract) await rememberContract(dataDir, server.baseUrl, api.capabilities.contract);
  const store = await opening;
  const jobs = await JobStore.open(store, { heldSends: () => heldUnconfirmedSends(store) });
  // Sends an earlier run left unanswered (killed between send and answer) go again under their key.
  const resent = await resendUnanswered({ api, jobs, clientId: events.clientId }).catch((error: unknown) => {
    warn(`could not send again what an earlier run left unanswered: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  });
  for (const outcome of resent) {
    if (outcome.kind === 'accepted') warn(`an earlier run's send (key ${outcome.key}) reached the server as job ${outcome.jobId}`);
    else if (outcome.kind !== 'unanswered') warn(`an earlier run's send (key ${outcome.key}): ${outcome.message}`);
  }
  const tracker = new JobTracker({ api, events, jobs });
  const library = await openLibrary(store, api, server, options);
  events.start();
  const workflows = new Map<string, Workflow>();

  return {
    api,
    library,
    profileId: options.profileId ?? null,
    async submit(workflow, workflowName, editorGraph) {
      const { promptId } = await submitJob({ api, jobs, clientId: events.clientId }, { workflow, workflowName, origin: 'cli', editorGraph });
      workflows.set(promptId, workflow);
      return promptId;
    },
    async follow(promptId, options) {
      const workflow = workflows.get(promptId) ?? {};
      let previews = 0;
      let previewWrites: Promise<void> = Promise.resolve();
      const offUpdate = tracker.onUpdate((snapshot) => {
        if (snapshot.promptId === promptId) options.onProgress(progressView(snapshot, previews, workflow));
      });
      const offPreview = tracker.onPreview((preview) => {
        if (preview.promptId !== promptId) return;
        previews += 1;
        const index = previews;
        const bytes = Uint8Array.from(preview.bytes);
        if (options.onPreview) previewWrites = previewWrites.then(() => options.onPreview!(index, preview.mime, bytes));
      });
      const tracked = tracker.track(promptId, { workflow, workflowName: null });
      try {
        const snapshot = await tracked.waitForEnd({ timeoutMs: options.timeoutMs, giveUpWhenUnreachable: true });
        await previewWrites;
        return {
          phase: snapshot.phase,
          outputs: snapshot.outputs,
          errorText: snapshot.phase === 'succeeded' ? null : describeJobFailure(snapshot, { explain: true }),
        };
      } catch (error) {
        if (error instanceof ServerUnreachableError) {
          const state = lastKnownState(error.snapshot, workflow);
          return {
            phase: 'unknown',
            outputs: [],
            errorText: `${error.message} The job's last known state: ${state}. It may still run on the server: check it with "flowdeck queue" once the server is back.`,
          };
        }
        if (error instanceof JobTimeoutError) {
          return { phase: 'timeout', outputs: [], errorText: `${error.message} (flowdeck cancel ${promptId} stops it).` };
        }
        throw error;
      } finally {
        offUpdate();
        offPreview();
      }
    },
    safeName(serverName) {
      return safeBaseName(serverName, 'output');
    },
    async close() {
      await tracker.dispose();
      await events.dispose();
      await library?.dispose();
      await store.close();
    },
  };
}

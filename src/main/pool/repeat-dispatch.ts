// The runs of a workflow repeated N times over a pool (the CLI's `run --repeat N --server ...`, the
// app's Run with "Run on: Pool"): each run goes to the least-loaded server that can run it, waiting
// for room when every such server is full. A server that stops answering before it accepted a run
// leaves the rotation and the run goes elsewhere at once; a run it had accepted waits for it up to
// the pool's reconcile deadline, is collected from it if it comes back, and otherwise runs on
// another server, the late one being cancelled there should it come back with it (late-jobs.ts).
// A run its server forgot (restarted) runs elsewhere. A run no server can run fails at once,
// naming what each lacks. What is the caller's own is injected: how the workflow is made ready for
// a server (uploads), how an accepted job is followed, and what a succeeded run's outputs become.
import type { JobStore } from '@main/jobs/job-store';
import { askServer } from '@main/jobs/server-verdict';
import { submitJob } from '@main/jobs/submit-job';
import type { JobOrigin } from '@main/jobs/types';
import type { Workflow } from '@main/service/types';
import { cloneWorkflow, type InputRef } from '@main/workflow/edit';
import type { FollowOutcome, JobFollower } from '@main/jobs/job-follower';
import type { JsonObject } from '@shared/json';
import { isForgottenJob, isUnreachable, refusedBeforeSending } from './failure-kinds';
import { cancelLateJob } from './late-jobs';
import type { PoolMember, ServerPool } from './server-pool';
import { describeError } from '@shared/describe-error';

export interface RepeatDispatchOptions<T> {
  pool: ServerPool;
  jobs: JobStore;
  repeat: number;
  workflow: Workflow;
  workflowName: string | null;
  origin: JobOrigin;
  editorGraph: JsonObject | null;
  /** Inputs set by uploads: not judged against a server's lists (the upload is made on the server that runs it). */
  uploadedRefs: readonly InputRef[];
  /** Makes `workflow` (a copy) ready to run on `member` (uploads its inputs there); once per member, tried again after a failure. */
  prepare(member: PoolMember, workflow: Workflow): Promise<void>;
  /** Follows a job `member` accepted; default the member's own follower. */
  followerFor?(member: PoolMember): JobFollower;
  /** A run's job was accepted by `member` (the app shows it at once). */
  accepted?(run: number, member: PoolMember, promptId: string): void;
  /** A run waits for room on the pool (every server that can run it is full). */
  waiting?(run: number): void;
  /** A run ended (as runAll will report it). */
  ended?(outcome: RunOutcome<T>): void;
  /** What a succeeded run's outputs become (the CLI downloads them into --out). */
  succeeded(run: number, member: PoolMember, promptId: string, outcome: FollowOutcome, workflow: Workflow): Promise<T>;
  log(message: string): void;
  /** Stops runs not yet accepted (the pool is closing); runs under way on a server are left to it. */
  signal?: AbortSignal;
}

export type RunOutcome<T> =
  | { run: number; status: 'succeeded'; member: PoolMember; promptId: string; value: T }
  | {
      run: number;
      /** 'unknown': its server stopped answering, or every server is out of rotation; whether it ran is not known. */
      status: 'failed' | 'unknown';
      member: PoolMember | null;
      promptId: string | null;
      error: string;
      /** What was thrown, when something was (a server's refusal names its nodes). */
      cause?: unknown;
    };

/** The runs, each looking for a server until one runs it or none can. */
export class RepeatDispatcher<T> {
  /** The workflow made ready per server (uploaded once per server). */
  private readonly prepared = new Map<PoolMember, Promise<Workflow>>();
  private readonly late: { member: PoolMember; promptId: string }[] = [];
  private readonly off: () => void;
  private readonly pool: ServerPool;

  constructor(private readonly options: RepeatDispatchOptions<T>) {
    this.pool = options.pool;
    // A server that comes back with a run given up on it: cancelled there (see late-jobs.ts).
    this.off = this.pool.on((event) => {
      if (event.type !== 'rejoined') return;
      for (const late of this.late.filter((l) => l.member === event.member)) {
        this.late.splice(this.late.indexOf(late), 1);
        void cancelLateJob(late.member, late.promptId).then(
          (note) => note && options.log(note),
          () => undefined,
        );
      }
    });
  }

  async runAll(): Promise<RunOutcome<T>[]> {
    const runs = Array.from({ length: this.options.repeat }, async (_, i) => {
      const outcome = await this.runOne(i + 1);
      this.options.ended?.(outcome);
      return outcome;
    });
    try {
      return await Promise.all(runs);
    } finally {
      this.off();
    }
  }

  private async runOne(run: number): Promise<RunOutcome<T>> {
    const { options } = this;
    const avoid = new Map<string, string>();
    for (;;) {
      if (options.signal?.aborted) return failed(run, null, 'failed', 'The pool was closed before this run was accepted by a server.');
      const choice = this.pool.choose(options.workflow, options.uploadedRefs, avoid);
      if (choice.kind === 'none') return failed(run, null, 'failed', choice.reason);
      if (choice.kind === 'down') return failed(run, null, 'unknown', choice.reason);
      if (choice.kind === 'busy') {
        options.waiting?.(run);
        await this.changed();
        continue;
      }
      const member = choice.member;
      this.pool.take(member);
      let promptId: string | null = null;
      let released = false;
      const release = (outcome: 'done' | 'failed' | 'moved'): void => {
        if (!released) this.pool.release(member, outcome);
        released = true;
      };
      try {
        const workflow = cloneWorkflow(await this.workflowFor(member));
        ({ promptId } = await submitJob(
          { api: member.api, jobs: options.jobs, clientId: member.server.clientId(), profileId: member.server.profileId ?? null },
          { workflow, workflowName: options.workflowName, origin: options.origin, editorGraph: options.editorGraph },
        ));
        options.log(`run ${run}: submitted job ${promptId} to ${member.name}`);
        options.accepted?.(run, member, promptId);
        const outcome = await this.follow(member, promptId, workflow);
        if (outcome !== 'moved' && outcome.phase === 'failed' && isForgottenJob(outcome.raw) && !this.pool.isSingle) {
          // Its server restarted and forgot it: nothing of it can finish there, so it runs elsewhere.
          release('moved');
          options.log(`run ${run}: ${member.name} no longer knows job ${promptId}; the run goes to another server`);
          continue;
        }
        if (outcome === 'moved') {
          release('moved');
          this.late.push({ member, promptId });
          options.log(
            `run ${run}: ${member.name} did not answer again within ${Math.round(this.pool.reconcileAfterMs / 1000)} s; job ${promptId} is given up and the run goes to another server`,
          );
          continue;
        }
        release(outcome.phase === 'succeeded' ? 'done' : 'failed');
        if (outcome.phase !== 'succeeded') return failed(run, member, 'failed', outcome.errorText ?? `The job ended as ${outcome.raw}.`, promptId);
        return { run, status: 'succeeded', member, promptId, value: await options.succeeded(run, member, promptId, outcome, workflow) };
      } catch (error) {
        release('moved');
        if (!this.pool.isSingle && promptId === null && isUnreachable(error)) {
          // Nothing reached it (or nothing it accepted): the run goes to another server at once.
          this.pool.markDown(member, error);
          continue;
        }
        if (!this.pool.isSingle && promptId === null && refusedBeforeSending(error)) {
          avoid.set(member.baseUrl, describeError(error));
          continue;
        }
        return failed(run, member, isUnreachable(error) ? 'unknown' : 'failed', describeError(error), promptId, error);
      }
    }
  }

  /** Follows an accepted job; 'moved' when its server stopped answering and did not come back in time. */
  private async follow(member: PoolMember, promptId: string, workflow: Workflow): Promise<FollowOutcome | 'moved'> {
    const meta = { workflow, workflowName: this.options.workflowName };
    const follower = this.options.followerFor?.(member) ?? member.server.follower;
    for (;;) {
      try {
        return await follower.follow(promptId, meta);
      } catch (error) {
        if (this.pool.isSingle || !isUnreachable(error)) throw error;
        this.pool.markDown(member, error);
        if (!(await this.rejoined(member))) return 'moved';
        const verdict = await askServer(member.api, promptId);
        if (verdict.kind === 'unknown') return 'moved';
        if (verdict.kind === 'ended') {
          return {
            phase: verdict.reading.phase,
            raw: verdict.reading.raw,
            outputs: verdict.history?.outputs ?? [],
            errorText: verdict.reading.phase === 'succeeded' ? null : `The job ended as ${verdict.reading.raw}.`,
          };
        }
        // In flight again, or not answering after all: follow it (or give up) once more.
      }
    }
  }

  private workflowFor(member: PoolMember): Promise<Workflow> {
    let prepared = this.prepared.get(member);
    if (!prepared) {
      const workflow = cloneWorkflow(this.options.workflow);
      prepared = this.options.prepare(member, workflow).then(() => workflow);
      // A failed preparation is tried again by the next run that goes there.
      prepared.catch(() => this.prepared.delete(member));
      this.prepared.set(member, prepared);
    }
    return prepared;
  }

  /** Resolves when the pool's figures change (a run ended somewhere, a server left or came back). */
  private changed(): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.options.signal;
      const done = (): void => {
        off();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const off = this.pool.on(done);
      signal?.addEventListener('abort', done);
    });
  }

  /** True when `member` answers again before the pool's reconcile deadline (counted from when it stopped answering). */
  private rejoined(member: PoolMember): Promise<boolean> {
    if (member.down === null) return Promise.resolve(true);
    const due = Math.max(0, member.down.since + this.pool.reconcileAfterMs - Date.now());
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        off();
        resolve(member.down === null);
      }, due);
      const off = this.pool.on((event) => {
        if (event.type !== 'rejoined' || event.member !== member) return;
        clearTimeout(timer);
        off();
        resolve(true);
      });
    });
  }
}

function failed<T>(
  run: number,
  member: PoolMember | null,
  status: 'failed' | 'unknown',
  error: string,
  promptId: string | null = null,
  cause?: unknown,
): RunOutcome<T> {
  return { run, status, member, promptId, error, ...(cause !== undefined ? { cause } : {}) };
}

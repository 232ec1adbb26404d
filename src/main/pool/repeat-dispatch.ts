// The runs of a repeated workflow, each looking for a pool server until one runs it or none can
// (moved here from the CLI's run-repeat.ts so the app's Run can use it too).
import { basename } from 'node:path';
import type { JobStore } from '../jobs/job-store';
import { askServer } from '../jobs/server-verdict';
import { submitJob } from '../jobs/submit-job';
import type { Library } from '../library';
import { isForgottenJob, isUnreachable, refusedBeforeSending } from './failure-kinds';
import { cancelLateJob } from './late-jobs';
import type { PoolMember, ServerPool } from './server-pool';
import { safeBaseName } from '../service/filenames';
import type { Workflow } from '../service/types';
import { cloneWorkflow } from '../workflow/edit';
import type { FollowOutcome } from '../watch/types';
import { downloadOutputs } from '../../cli/commands/run';
import type { RepeatRequest, RunLine } from '../../cli/commands/run-repeat';

/** The runs, each looking for a server until one runs it or none can. */
export class RepeatDispatcher {
  /** The workflow with this run's uploads, per server (uploaded once per server). */
  private readonly prepared = new Map<PoolMember, Promise<Workflow>>();
  /** Output names taken in --out by any run, so two runs never pick the same one. */
  private readonly taken = new Set<string>();
  private readonly late: { member: PoolMember; promptId: string }[] = [];
  private readonly off: () => void;

  constructor(
    private readonly pool: ServerPool,
    private readonly jobs: JobStore,
    private readonly library: Library | null,
    private readonly request: RepeatRequest,
  ) {
    // A server that comes back with a run given up on it: cancelled there (see late-jobs.ts).
    this.off = pool.on((event) => {
      if (event.type !== 'rejoined') return;
      for (const late of this.late.filter((l) => l.member === event.member)) {
        this.late.splice(this.late.indexOf(late), 1);
        void cancelLateJob(late.member, late.promptId).then((note) => note && request.log(note), () => undefined);
      }
    });
  }

  async runAll(): Promise<RunLine[]> {
    const runs = Array.from({ length: this.request.repeat }, (_, i) => this.runOne(i + 1));
    try {
      return await Promise.all(runs);
    } finally {
      this.off();
    }
  }

  private async runOne(run: number): Promise<RunLine> {
    const avoid = new Map<string, string>();
    for (;;) {
      const choice = this.pool.choose(this.request.workflow, this.request.uploadedRefs, avoid);
      if (choice.kind === 'none') return this.failed(run, null, 'failed', choice.reason);
      if (choice.kind === 'down') return this.failed(run, null, 'unknown', choice.reason);
      if (choice.kind === 'busy') {
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
          { api: member.api, jobs: this.jobs, clientId: member.server.clientId(), profileId: member.server.profileId ?? null },
          { workflow, workflowName: basename(this.request.workflowPath), origin: 'cli', editorGraph: this.request.editorGraph },
        ));
        this.request.log(`run ${run}: submitted job ${promptId} to ${member.name}`);
        const outcome = await this.follow(member, promptId, workflow);
        if (outcome !== 'moved' && outcome.phase === 'failed' && isForgottenJob(outcome.raw) && !this.pool.isSingle) {
          // Its server restarted and forgot it: nothing of it can finish there, so it runs elsewhere.
          release('moved');
          this.request.log(`run ${run}: ${member.name} no longer knows job ${promptId}; the run goes to another server`);
          continue;
        }
        if (outcome === 'moved') {
          release('moved');
          this.late.push({ member, promptId });
          this.request.log(`run ${run}: ${member.name} did not answer again within ${Math.round(this.pool.reconcileAfterMs / 1000)} s; job ${promptId} is given up and the run goes to another server`);
          continue;
        }
        release(outcome.phase === 'succeeded' ? 'done' : 'failed');
        if (outcome.phase !== 'succeeded') return this.failed(run, member, 'failed', outcome.errorText ?? `The job ended as ${outcome.raw}.`, promptId);
        const source = { api: member.api, library: this.library, profileId: member.server.profileId ?? null, safeName: (name: string) => safeBaseName(name, 'output') };
        const libraryRun = { promptId, workflow, workflowName: basename(this.request.workflowPath), createdAt: Date.now(), server: member.api.profile };
        const outputs = await downloadOutputs(source, outcome.outputs, this.request.outDir, this.request.log, libraryRun, this.request.signal, this.taken);
        return { run, server: member.baseUrl, prompt_id: promptId, status: 'succeeded', outputs, error: null };
      } catch (error) {
        release('moved');
        if (!this.pool.isSingle && promptId === null && isUnreachable(error)) {
          // Nothing reached it (or nothing it accepted): the run goes to another server at once.
          this.pool.markDown(member, error);
          continue;
        }
        if (!this.pool.isSingle && promptId === null && refusedBeforeSending(error)) {
          avoid.set(member.baseUrl, error instanceof Error ? error.message : String(error));
          continue;
        }
        return this.failed(run, member, isUnreachable(error) ? 'unknown' : 'failed', error instanceof Error ? error.message : String(error), promptId);
      }
    }
  }

  /** Follows an accepted job; 'moved' when its server stopped answering and did not come back in time. */
  private async follow(member: PoolMember, promptId: string, workflow: Workflow): Promise<FollowOutcome | 'moved'> {
    const meta = { workflow, workflowName: basename(this.request.workflowPath) };
    for (;;) {
      try {
        return await member.server.follower.follow(promptId, meta);
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
      const workflow = cloneWorkflow(this.request.workflow);
      prepared = this.request.applyUploads(member, workflow).then(() => workflow);
      // A failed upload is tried again by the next run that goes there.
      prepared.catch(() => this.prepared.delete(member));
      this.prepared.set(member, prepared);
    }
    return prepared;
  }

  /** Resolves when the pool's figures change (a run ended somewhere, a server left or came back). */
  private changed(): Promise<void> {
    return new Promise((resolve) => {
      const off = this.pool.on(() => {
        off();
        resolve();
      });
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

  private failed(run: number, member: PoolMember | null, status: 'failed' | 'unknown', error: string, promptId: string | null = null): RunLine {
    return { run, server: member?.baseUrl ?? null, prompt_id: promptId, status, outputs: [], error };
  }
}

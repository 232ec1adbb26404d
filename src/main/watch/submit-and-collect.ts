// The server side of one file's life, exactly once: upload the file (and its mask), record the
// prompt id, submit; then follow the job (or read how it ended) and deliver its outputs. After a
// restart it asks the server about a recorded id before sending anything again (see run()).
// Failures are thrown to the runner, which decides what they mean (FolderRunner.react).
import { existsSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { safeBaseName } from '@main/service/filenames';
import type { ServiceApi } from '@main/service/ports';
import type { Workflow } from '@main/service/types';
import { uploadInput } from '@main/jobs/upload-input';
import { cloneWorkflow, setInput, type InputRef } from '@main/workflow/edit';
import type { HotFolderConfig } from './config';
import { deliverOutputs } from './deliver';
import type { EntryBook } from './entry-book';
import type { EntryRecord, FailedPhase } from './journal';
import { askServer, type Verdict } from '@main/jobs/server-verdict';
import { recordAccepted, submitJob, type JobIntent, type SubmitTarget } from '@main/jobs/submit-job';
import { CollectError, FileGoneError, JobLostError, StoppedError, type ActivePhase, type Entry } from './runner-entry';
import type { RunnerDeps } from './runner-deps';
import type { FollowOutcome } from '@main/jobs/job-follower';
import type { FinishedOutput } from './types';
import type { PoolMember } from '@main/pool/server-pool';
import { isForgottenJob } from '@main/pool/failure-kinds';

/** What sending and collecting need from the runner. */
export interface SubmitAndCollectHost {
  isStopping(): boolean;
  setPhase(entry: Entry, phase: ActivePhase | null): void;
  fail(entry: Entry, phase: FailedPhase, reason: string): Promise<void>;
  /** The server accepted a file: a pause for an account problem is over. */
  accepted(): void;
  /** Whether a job its server no longer knows runs again elsewhere (a pool) instead of failing. */
  movesLostJobs(): boolean;
  warn(message: string): void;
}

export interface SubmitAndCollectDeps extends Pick<RunnerDeps, 'jobs' | 'profileId' | 'sink' | 'emit' | 'now' | 'newPromptId' | 'prepareWorkflow'> {
  config: HotFolderConfig;
  /** The workflow input the file's upload is bound to. */
  bindRef: InputRef;
  book: EntryBook;
  host: SubmitAndCollectHost;
}

export class SubmitAndCollect {
  /** Output paths chosen by deliveries under way, so two jobs of this folder never pick the same name. */
  private readonly reserved = new Set<string>();

  constructor(private readonly deps: SubmitAndCollectDeps) {}

  /** Runs `entry` on `member`: the pool's choice for a new send, or the server a recorded job went to. */
  async run(entry: Entry, member: PoolMember): Promise<void> {
    const r = entry.record;
    if (r.state === 'submitted' && r.promptId) {
      await this.collect(entry, member, null);
      return;
    }
    if (r.state === 'submitting' && r.promptId) {
      const verdict = await askServer(member.api, r.promptId);
      if (verdict.kind === 'unreachable') throw verdict.error;
      if (verdict.kind !== 'unknown') {
        // The send before the crash got through: never send it again.
        await recordAccepted(this.target(member), this.intent(entry.workflow ?? this.rebuildWorkflow(r)), { promptId: r.promptId, number: null }, true);
        await this.deps.book.setState(entry, 'submitted');
        this.deps.host.setPhase(entry, 'following');
        await this.collect(entry, member, verdict);
        return;
      }
      // The server never had it: sending again (with the same id) cannot run it twice.
    }
    await this.send(entry, member);
    this.deps.host.setPhase(entry, 'following');
    await this.collect(entry, member, null);
  }

  /** Uploads the file (and its mask), records the prompt id, submits. */
  private async send(entry: Entry, member: PoolMember): Promise<void> {
    const r = entry.record;
    const { book } = this.deps;
    const api = member.api;
    if (!existsSync(r.path)) throw new FileGoneError(r.path);
    await book.setState(entry, 'uploading');
    const value = await this.upload(entry, api);
    r.uploadedAs = value;
    const workflow = cloneWorkflow(this.deps.config.workflow);
    setInput(workflow, this.deps.bindRef, value);
    await this.deps.prepareWorkflow?.(member, workflow, this.deps.bindRef);
    entry.workflow = workflow;
    // The pipeline's one submit: where the client picks the id, it is recorded here (and in the
    // job journal, with origin 'hot-folder') BEFORE sending, so a crash between the send and the
    // answer is settled by asking the server; a resend after a verdict of "unknown" keeps the id.
    const { promptId } = await submitJob(this.target(member), {
      ...this.intent(workflow),
      promptId: r.promptId,
      newPromptId: this.deps.newPromptId,
      recordIntent: async (chosen) => {
        r.promptId = chosen;
        r.serverKind = api.profile.kind;
        r.baseUrl = api.profile.baseUrl;
        await book.setState(entry, 'submitting');
      },
    });
    r.promptId = promptId;
    entry.sentHere = true;
    await book.setState(entry, 'submitted');
    // A file got through while the folder was paused for its account: the problem is fixed.
    this.deps.host.accepted();
  }

  private async upload(entry: Entry, api: ServiceApi): Promise<string> {
    const r = entry.record;
    const ext = extname(r.path).toLowerCase();
    const stem = safeBaseName(basename(r.path, extname(r.path)), 'input');
    // Named by content: the same bytes get the same name (a resend keeps one file on the server),
    // different files with the same name never overwrite each other.
    const { value } = await uploadInput(api, {
      image: r.path,
      imageName: `${stem}-${r.imageSha256.slice(0, 12)}${ext}`,
      mask: r.maskPath ? { path: r.maskPath, name: `${stem}-${r.contentKey.slice(0, 12)}-mask.png` } : null,
    });
    return value;
  }

  /** Follows an accepted job (or reads how it ended), then delivers its outputs. */
  private async collect(entry: Entry, member: PoolMember, known: Verdict | null): Promise<void> {
    const r = entry.record;
    const promptId = r.promptId!;
    const { config, book, host } = this.deps;
    const api = member.api;
    const workflow = entry.workflow ?? this.rebuildWorkflow(r);
    const meta = { workflow, workflowName: config.workflowName };
    let outcome: FollowOutcome;
    if (entry.sentHere && known === null) {
      outcome = await this.follow(member, promptId, meta);
    } else {
      const verdict = known ?? (await askServer(api, promptId));
      switch (verdict.kind) {
        case 'unreachable':
          throw verdict.error;
        case 'unknown':
          // In a pool the file simply runs elsewhere: a server that does not know the job cannot finish it.
          if (host.movesLostJobs()) throw new JobLostError(promptId, member.name);
          await host.fail(
            entry,
            'job',
            `The server no longer knows job ${promptId} (it may have been restarted, or its history cleared), so its results cannot be collected. Retry the file to run it again.`,
          );
          return;
        case 'ended':
          await this.recordEnded(promptId, verdict);
          outcome = {
            phase: verdict.reading.phase,
            raw: verdict.reading.raw,
            outputs: verdict.history?.outputs ?? [],
            errorText:
              verdict.reading.phase === 'succeeded'
                ? null
                : verdict.history?.error
                  ? `The job failed${verdict.history.error.nodeId ? ` in node ${verdict.history.error.nodeId}` : ''}: ${verdict.history.error.exceptionType}: ${verdict.history.error.exceptionMessage}`
                  : `The job ended as ${verdict.reading.raw}${verdict.reading.errorMessage ? `: ${verdict.reading.errorMessage}` : ''}.`,
          };
          break;
        case 'in_flight':
          outcome = await this.follow(member, promptId, meta);
          break;
      }
    }
    // The server forgot the job (restarted while it ran): in a pool the file runs again elsewhere.
    if (outcome.phase === 'failed' && isForgottenJob(outcome.raw) && host.movesLostJobs()) throw new JobLostError(promptId, member.name);
    if (outcome.phase !== 'succeeded') {
      await host.fail(entry, 'job', outcome.errorText ?? `The job ended as ${outcome.raw}.`);
      return;
    }
    host.setPhase(entry, 'delivering');
    let delivered: FinishedOutput[];
    try {
      delivered = await deliverOutputs({
        api,
        folder: config,
        entry: r,
        promptId,
        workflow,
        outputs: outcome.outputs,
        reserved: this.reserved,
        sink: this.deps.sink,
        now: this.deps.now,
        warn: (message) => host.warn(message),
      });
    } catch (error) {
      throw new CollectError(error);
    }
    r.outputs = delivered.map((o) => o.path);
    r.reason = delivered.length === 0 ? 'The job succeeded without output files.' : null;
    r.failedPhase = null;
    await book.setState(entry, 'done');
    for (const output of delivered) this.deps.emit({ type: 'output', folderId: config.id, output });
    await book.disposeInputs(entry);
  }

  private async follow(member: PoolMember, promptId: string, meta: { workflow: Workflow; workflowName: string | null }): Promise<FollowOutcome> {
    let outcome: FollowOutcome;
    try {
      outcome = await member.server.follower.follow(promptId, meta);
    } catch (error) {
      if (this.deps.host.isStopping()) throw new StoppedError();
      throw error;
    }
    // Stopped meanwhile (a folder being reconfigured): the next runner collects it from the journal.
    if (this.deps.host.isStopping()) throw new StoppedError();
    return outcome;
  }

  private target(member: PoolMember): SubmitTarget {
    return { api: member.api, jobs: this.deps.jobs, clientId: member.server.clientId(), profileId: member.server.profileId ?? this.deps.profileId };
  }

  private intent(workflow: Workflow): JobIntent {
    return { workflow, workflowName: this.deps.config.workflowName, origin: 'hot-folder' };
  }

  /** A job whose end a verdict read (no tracker followed it): the job journal is told too. */
  private async recordEnded(promptId: string, verdict: Extract<Verdict, { kind: 'ended' }>): Promise<void> {
    const jobs = this.deps.jobs;
    if (!jobs) return;
    await jobs.updatePhase(promptId, verdict.reading.phase, verdict.reading.raw);
    await jobs.addOutputs(promptId, verdict.history?.outputs ?? []);
  }

  private rebuildWorkflow(r: EntryRecord): Workflow {
    const workflow = cloneWorkflow(this.deps.config.workflow);
    if (r.uploadedAs !== null) setInput(workflow, this.deps.bindRef, r.uploadedAs);
    return workflow;
  }
}

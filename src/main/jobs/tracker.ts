// Follows jobs to their end through the events socket, falling back to polling the status endpoint
// whenever the socket is not connected or a job has gone quiet, and recovering from history what a
// socket gap may have hidden. A job ends once, at the first terminal signal (event or status).
// Works against the ServiceApi / EventStream interfaces only, so it runs the same in the app, the
// CLI and the tests.
//
// This class holds the followed jobs and decides how a job ends and what a verdict on a doubtful
// job means; its collaborators beside it do one thing each: job-events.ts folds socket frames into
// the jobs, job-polling.ts polls the jobs the socket cannot vouch for, server-verdict.ts asks the
// server about a doubtful job, job-history.ts recovers what an end's history adds, job-journal.ts
// orders the journal writes, end-waiters.ts holds the waitForEnd callers.
import { sameBaseUrl } from '@main/config/settings';
import { collectNodeOutputs } from '@main/service/outputs';
import type { ConnectionState, EventStream, JobHistory, ServiceApi } from '@main/service/ports';
import type { JobPhase, JobStatusReading, OutputFile } from '@main/service/types';
import { EndWaiters } from './end-waiters';
import { clientSideError, toJobError } from './error-explanations';
import { JobEventRouter } from './job-events';
import { fetchHistory, mergeHistory } from './job-history';
import { JobJournal } from './job-journal';
import { JobPoller } from './job-polling';
import type { JobRecord, JobStore } from './job-store';
import { JobState } from './job-state';
import { askServer, type Verdict } from './server-verdict';
import { CancellableSleeps, systemClock, type TrackerClock } from './tracker-clock';
import { ServerUnreachableError, TrackerDisposedError } from './tracker-errors';
import { describeError } from '@shared/describe-error';
import { serviceLimits } from '@main/service/limits';
import type { TrackerHost } from './tracker-host';
import type { JobTrackerDeps, PreviewUpdate, TrackedJob, TrackMeta, WaitOptions } from './tracker-types';
import type { JobErrorInfo, JobSnapshot } from './types';

export type { TrackerClock } from './tracker-clock';
export { JobTimeoutError, ServerUnreachableError } from './tracker-errors';
export type { JobTrackerDeps, PreviewUpdate, TrackedJob, TrackMeta, WaitOptions } from './tracker-types';

const NEVER_SUBMITTED = clientSideError(
  'The job never reached the server: Flowdeck stopped before the server confirmed it, and the server has no record of it. Run the workflow again.',
  'The server does not know this job (never reached the server).',
);
const REMOVED_FROM_QUEUE = clientSideError(
  "The job was removed from the server's queue before it started (cancelled by another client, the queue was cleared, or the server restarted), so it did not run.",
  'Removed from the queue before it started.',
);
const LOST = clientSideError(
  'The server no longer knows this job (it may have been restarted, or its history cleared), so its outcome cannot be recovered. Run the workflow again if you need its results.',
  'The server has no record of this job any more.',
);

export class JobTracker {
  private readonly api: ServiceApi;
  private readonly events: EventStream;
  private readonly store: JobStore | null;
  private readonly clock: TrackerClock;
  private readonly pollIntervalMs: number;
  private readonly timeoutMs: number | null;
  private readonly staleAfterMs: number;
  private readonly collect: (node: string, output: unknown) => OutputFile[];
  private readonly keepEnded: number;
  private readonly profileId: string | null;
  private readonly unreachableAfterMs: number;
  /** Waits that give up when their job becomes unreachable (waitForEnd giveUpWhenUnreachable). */
  private readonly unreachableWaiters = new Map<string, Set<(error: ServerUnreachableError) => void>>();

  private readonly jobs = new Map<string, JobState>();
  private readonly waiters: EndWaiters;
  private readonly journal: JobJournal;
  private readonly router: JobEventRouter;
  private readonly updateListeners = new Set<(job: JobSnapshot) => void>();
  private readonly warningListeners = new Set<(message: string) => void>();
  private readonly sleeps: CancellableSleeps;
  private readonly host: TrackerHost;
  private readonly poller: JobPoller;
  private readonly unsubscribe: Array<() => void> = [];
  private lastState: ConnectionState;
  private expecting = false;
  private disposed = false;

  constructor(deps: JobTrackerDeps) {
    this.api = deps.api;
    this.events = deps.events;
    this.store = deps.jobs ?? null;
    this.clock = deps.clock ?? systemClock;
    this.pollIntervalMs = Math.max(10, deps.pollIntervalMs ?? 2000);
    this.timeoutMs = deps.timeoutMs ?? null;
    this.staleAfterMs = Math.max(this.pollIntervalMs, deps.staleAfterMs ?? this.pollIntervalMs * 5);
    this.collect = deps.collectOutputs ?? ((node, output) => collectNodeOutputs(node, output));
    this.keepEnded = Math.max(1, deps.keepEnded ?? 200);
    this.profileId = deps.profileId ?? null;
    this.unreachableAfterMs = deps.unreachableAfterMs ?? serviceLimits().unreachableAfterMs;
    this.waiters = new EndWaiters(this.clock);
    this.journal = new JobJournal(this.store, (message) => this.warn(message));
    this.sleeps = new CancellableSleeps(this.clock);
    this.host = {
      api: this.api,
      events: this.events,
      jobs: this.jobs,
      clock: this.clock,
      journal: this.journal,
      collect: this.collect,
      pollIntervalMs: this.pollIntervalMs,
      staleAfterMs: this.staleAfterMs,
      isDisposed: () => this.disposed,
      emit: (job) => this.emit(job),
      warn: (message) => this.warn(message),
      guard: (fn) => this.guard(fn),
      afterChange: () => this.afterChange(),
      sleep: (ms) => this.sleeps.sleep(ms),
      finishByEvent: (job, phase, raw, error) => this.finishByEvent(job, phase, raw, error),
      finishByStatus: (job, reading, known) => this.finishByStatus(job, reading, known),
      applyVerdict: (job, verdict) => this.applyVerdict(job, verdict),
      noteUnreachable: (job, reason) => this.noteUnreachable(job, reason),
      noteReachable: (job) => this.noteReachable(job),
    };
    this.router = new JobEventRouter(this.host);
    this.poller = new JobPoller(this.host);
    this.lastState = this.events.state;
    this.unsubscribe.push(this.events.onEvent((event) => this.guard(() => this.router.handleEvent(event))));
    this.unsubscribe.push(this.events.onStateChange((state) => this.guard(() => this.handleState(state))));
  }

  /** Starts following a job the server accepted (call it once submit has answered). */
  track(promptId: string, meta: TrackMeta = {}): TrackedJob {
    if (this.disposed) throw new Error('The job tracker has been shut down.');
    let job = this.jobs.get(promptId);
    if (!job) {
      job = new JobState(promptId, this.clock.now(), meta);
      if (this.events.state !== 'connected') job.sawGap = true;
      this.jobs.set(promptId, job);
      this.journalNew(job, meta);
      this.emit(job);
      this.router.replayBuffered(job);
      this.afterChange();
    } else {
      if (meta.workflowName && !job.workflowName) job.workflowName = meta.workflowName;
      if (meta.origin && !job.origin) job.origin = meta.origin;
    }
    return this.handle(promptId);
  }

  get(promptId: string): JobSnapshot | null {
    return this.jobs.get(promptId)?.snapshot() ?? null;
  }

  /** Every job followed now, and the most recent ended ones. */
  list(): JobSnapshot[] {
    return [...this.jobs.values()].map((job) => job.snapshot());
  }

  /**
   * Records that the user asked the server to cancel a job and asks the server about it now, so
   * the cancellation shows without waiting for the next poll (a local server sends no event for a
   * deleted pending job).
   */
  noteCancelRequested(promptId: string): void {
    const job = this.jobs.get(promptId);
    if (!job || job.ended) return;
    job.cancelRequested = true;
    this.clock.setTimeout(() => {
      if (!job.ended) void this.poller.poll(job);
    }, 250);
  }

  onUpdate(listener: (job: JobSnapshot) => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  onPreview(listener: (preview: PreviewUpdate) => void): () => void {
    return this.router.onPreview(listener);
  }

  /** Problems that did not stop tracking (a poll that failed, the journal not writable). */
  onWarning(listener: (message: string) => void): () => void {
    this.warningListeners.add(listener);
    return () => this.warningListeners.delete(listener);
  }

  /**
   * Resolves with the final snapshot once the job has ended (and its end is journaled).
   * Rejects with JobTimeoutError after the timeout, without cancelling the job.
   */
  waitForEnd(promptId: string, options: WaitOptions = {}): Promise<JobSnapshot> {
    const job = this.jobs.get(promptId);
    if (!job) return Promise.reject(new Error(`Job ${promptId} is not being followed.`));
    if (job.ended) return this.journal.settled(promptId).then(() => job.snapshot());
    if (this.disposed) return Promise.reject(new TrackerDisposedError(promptId));
    const timeoutMs = options.timeoutMs === undefined ? this.timeoutMs : options.timeoutMs;
    const ended = this.waiters.add(promptId, timeoutMs);
    if (!options.giveUpWhenUnreachable) return ended;
    if (job.unreachable) return Promise.reject(this.unreachableError(job));
    const unreachable = new Promise<never>((_resolve, reject) => {
      let set = this.unreachableWaiters.get(promptId);
      if (!set) this.unreachableWaiters.set(promptId, (set = new Set()));
      set.add(reject);
      void ended.finally(() => set.delete(reject)).catch(() => undefined);
    });
    return Promise.race([ended, unreachable]);
  }

  /**
   * Asks the server about a job now ("Check again" on a job whose server stopped answering): a
   * poll, or the check of whether the server still knows it. Returns the job as it then is.
   */
  async checkAgain(promptId: string): Promise<JobSnapshot | null> {
    const job = this.jobs.get(promptId);
    if (!job) return null;
    if (!job.ended && !this.disposed) await this.poller.poll(job);
    return job.snapshot();
  }

  /**
   * Settles every job the journal has in flight on this tracker's server: each is asked of the
   * server and either followed again or finished with its real outcome. A job the server cannot be
   * asked about now is followed (polled) until it can. Returns the snapshots after the check.
   * `only`: just these jobs (the unconfirmed sends of a hot folder just removed), so that jobs
   * being sent now by others are not asked about before their submit has answered.
   */
  async reconcile(options: { only?: readonly string[] } = {}): Promise<JobSnapshot[]> {
    const store = this.store;
    if (!store || this.disposed) return [];
    const only = options.only ? new Set(options.only) : null;
    const inFlight = (await store.listInFlight()).filter((r) => !only || only.has(r.promptId));
    // A hot folder settles its own unconfirmed sends: when the server never got one, the folder
    // sends it again under the same id, which a "never submitted" end here would contradict. Only
    // those it still holds, though: the send of a folder removed since (or of a file it gave up on)
    // has nobody else to settle it. Read after the records: a send seen here as 'submitting' that
    // its folder no longer holds has moved on for good (accepted, failed, or its folder removed).
    const held = inFlight.some((r) => r.origin === 'hot-folder' && r.phase === 'submitting') ? await store.heldElsewhere() : new Set<string>();
    const records = inFlight.filter(
      (r) =>
        r.serverKind === this.api.profile.kind &&
        sameBaseUrl(r.baseUrl, this.api.profile.baseUrl) &&
        !(r.origin === 'hot-folder' && r.phase === 'submitting' && held.has(r.promptId)) &&
        // A send of this process still under way settles its own row (JobStore.whileSending).
        !(r.phase === 'submitting' && store.isBeingSent(r.promptId)) &&
        // On v2 a `submitting` row is named by its Idempotency-Key, not a job id the server could
        // know: it is sent again under that key (submit-v2.ts resendUnanswered), never judged here.
        !(r.phase === 'submitting' && this.api.capabilities.contract === 'v2'),
    );
    const results: JobSnapshot[] = [];
    for (const record of records) {
      if (this.disposed) break;
      results.push(await this.reconcileOne(record));
    }
    return results;
  }

  /** Stops following (timers, socket listeners); pending waits reject. Resolves once the journal is written. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const off of this.unsubscribe.splice(0)) off();
    this.poller.cancelScheduled();
    this.sleeps.wakeAll();
    this.waiters.rejectAll();
    this.router.clear();
    if (this.expecting) this.events.setExpectingActivity(false);
    this.expecting = false;
    await this.journal.flush();
  }

  // ---- connection -----------------------------------------------------------------------------

  private handleState(state: ConnectionState): void {
    if (this.disposed) return;
    const previous = this.lastState;
    this.lastState = state;
    if (state !== 'connected') {
      // Whatever happens now may never reach us as an event: remember to ask history at the end.
      for (const job of this.jobs.values()) if (!job.ended) job.sawGap = true;
      // We may miss the running job's end; a stale "current job" would misattribute previews.
      this.router.connectionLost();
      // Switch to polling now rather than at the next scheduled tick.
      if (previous === 'connected') this.poller.cancelScheduled();
      this.poller.schedule(0);
    } else if (previous !== 'connected') {
      // Back online: the jobs may have moved (or ended) meanwhile; ask now rather than wait.
      for (const job of this.jobs.values()) if (!job.ended && job.sawGap) void this.poller.poll(job);
    }
  }

  // ---- ending ---------------------------------------------------------------------------------

  private async finishByEvent(job: JobState, phase: JobPhase, raw: string, error: JobErrorInfo | null): Promise<void> {
    if (job.ended) return;
    if (error && (!job.error || job.error.exceptionType === null)) job.error = error;
    if (job.finishing) {
      // A status already ended it; that path completes the end (this only added detail).
      this.emit(job);
      return;
    }
    if (job.sawGap) {
      job.finishing = true;
      this.emit(job);
      const history = await fetchHistory(this.host, job.promptId);
      mergeHistory(job, history, phase, this.journal);
    }
    this.end(job, phase, raw);
  }

  private async finishByStatus(job: JobState, reading: JobStatusReading, known: JobHistory | null): Promise<void> {
    if (job.ended || job.finishing) return;
    job.finishing = true;
    job.rawStatus = reading.raw;
    this.emit(job);
    const history = known ?? (await fetchHistory(this.host, job.promptId));
    mergeHistory(job, history, reading.phase, this.journal);
    if (reading.phase === 'failed' && !job.error) {
      job.error = toJobError({
        exceptionType: null,
        message: reading.errorMessage ?? `The server reported the job as "${reading.raw}" without further detail.`,
      });
    }
    this.end(job, reading.phase, reading.raw);
  }

  private end(job: JobState, phase: JobPhase, raw: string): void {
    if (job.ended) return;
    job.end(phase, raw, this.clock.now());
    this.router.jobEnded(job.promptId);
    const error = job.error;
    const outputs = [...job.outputs];
    this.journal.writeEnd(job, phase, raw, outputs, error);
    this.emit(job);
    void this.journal.settled(job.promptId).then(() => this.waiters.resolve(job.promptId, () => job.snapshot()));
    this.afterChange();
    this.forgetOldEnded();
  }

  // ---- reconciliation -------------------------------------------------------------------------

  private async reconcileOne(record: JobRecord): Promise<JobSnapshot> {
    const existing = this.jobs.get(record.promptId);
    if (existing) return existing.snapshot();
    const job = new JobState(record.promptId, this.clock.now(), { workflow: record.workflow, workflowName: record.workflowName, origin: record.origin });
    job.addOutputs(record.outputs);
    if (record.phase === 'running') job.markRunning(this.clock.now(), record.rawStatus ?? undefined);
    else job.rawStatus = record.rawStatus ?? job.rawStatus;
    job.error = record.error;
    // Everything between the last run and now went unseen.
    job.sawGap = true;
    // A local server routes a job's events only to the socket of the client id it was sent with.
    job.pollAlways = this.api.capabilities.jobEvents === 'submitting-client' && record.clientId !== null && record.clientId !== this.events.clientId;
    this.jobs.set(record.promptId, job);
    job.unconfirmed = record.phase === 'submitting';
    const verdict = await askServer(this.api, record.promptId);
    if (!job.ended && !job.finishing) await this.applyVerdict(job, verdict);
    await this.journal.settled(record.promptId);
    this.afterChange();
    return job.snapshot();
  }

  private async applyVerdict(job: JobState, verdict: Verdict): Promise<void> {
    job.needsCheck = verdict.kind === 'unreachable';
    if (verdict.kind !== 'unreachable') this.noteReachable(job);
    switch (verdict.kind) {
      case 'ended':
        job.unconfirmed = false;
        await this.finishByStatus(job, verdict.reading, verdict.history);
        return;
      case 'in_flight':
        this.poller.applyInFlight(job, verdict.reading);
        if (job.unconfirmed) this.journal.writePhase(job); // it reached the server: no longer "submitting"
        job.unconfirmed = false;
        return;
      case 'unknown': {
        if (job.cancelRequested) {
          // A local server forgets a pending job it deleted: that is the cancellation we asked for.
          this.end(job, 'cancelled', 'cancelled');
          return;
        }
        if (this.api.capabilities.jobStatus === 'queue-and-history' && job.seenQueued && job.phase === 'pending' && job.startedAt === null) {
          // Seen waiting in the queue, never started, now neither queued nor in the history: a
          // local server forgets a waiting job that someone deleted (another client, a cleared
          // queue). It was cancelled, not failed; the cloud reports such a job as cancelled itself.
          job.error = REMOVED_FROM_QUEUE;
          this.end(job, 'cancelled', 'cancelled');
          return;
        }
        const never = job.unconfirmed;
        job.error = never ? NEVER_SUBMITTED : LOST;
        this.end(job, 'failed', never ? 'never_submitted' : 'lost');
        return;
      }
      case 'unreachable':
        // Cannot decide now; keep polling, and the first answer settles it.
        this.warn(`Could not check job ${job.promptId} with the server: ${verdict.reason}`);
        if (this.events.state !== 'connected') this.noteUnreachable(job, verdict.reason);
        this.emit(job);
        this.afterChange();
        return;
    }
  }

  // ---- an unreachable server ----------------------------------------------------------------------

  private noteUnreachable(job: JobState, reason: string): void {
    if (job.ended || this.disposed) return;
    const now = this.clock.now();
    job.unreachableSince ??= now;
    job.unreachableReason = reason;
    if (job.unreachable || now - job.unreachableSince < this.unreachableAfterMs) return;
    job.unreachable = true;
    this.warn(`The server stopped answering about job ${job.promptId} (${reason}); its state is unknown until it answers again.`);
    this.emit(job);
    const set = this.unreachableWaiters.get(job.promptId);
    this.unreachableWaiters.delete(job.promptId);
    for (const reject of set ?? []) reject(this.unreachableError(job));
  }

  private noteReachable(job: JobState): void {
    if (job.unreachableSince === null) return;
    const wasUnreachable = job.unreachable;
    job.unreachableSince = null;
    job.unreachableReason = null;
    job.unreachable = false;
    if (wasUnreachable) this.emit(job);
  }

  private unreachableError(job: JobState): ServerUnreachableError {
    return new ServerUnreachableError(job.snapshot(), this.unreachableAfterMs, job.unreachableReason ?? 'no answer');
  }

  // ---- journal --------------------------------------------------------------------------------

  private journalNew(job: JobState, meta: TrackMeta): void {
    this.journal.write(job.promptId, (store) =>
      store.recordSubmittedIfAbsent({
        promptId: job.promptId,
        profileId: this.profileId,
        serverKind: this.api.profile.kind,
        baseUrl: this.api.profile.baseUrl,
        clientId: this.events.clientId,
        workflow: meta.workflow ?? null,
        workflowName: meta.workflowName ?? null,
        origin: meta.origin ?? null,
      }),
    );
  }

  // ---- housekeeping ---------------------------------------------------------------------------

  private handle(promptId: string): TrackedJob {
    return {
      promptId,
      snapshot: () => {
        const job = this.jobs.get(promptId);
        if (!job) throw new Error(`Job ${promptId} is no longer followed.`);
        return job.snapshot();
      },
      waitForEnd: (options) => this.waitForEnd(promptId, options),
    };
  }

  /** After any change: keep polling while jobs are active, and tell the socket whether to expect traffic. */
  private afterChange(): void {
    if (this.disposed) return;
    this.poller.schedule(this.pollIntervalMs);
    const expecting = [...this.jobs.values()].some((job) => !job.ended && job.phase === 'running');
    if (expecting !== this.expecting) {
      this.expecting = expecting;
      this.events.setExpectingActivity(expecting);
    }
  }

  private forgetOldEnded(): void {
    const ended = [...this.jobs.values()].filter((job) => job.ended && !this.waiters.has(job.promptId));
    if (ended.length <= this.keepEnded) return;
    ended.sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0));
    for (const job of ended.slice(0, ended.length - this.keepEnded)) this.jobs.delete(job.promptId);
  }

  private emit(job: JobState): void {
    if (this.updateListeners.size === 0) return;
    const snapshot = job.snapshot();
    for (const listener of this.updateListeners) this.guard(() => listener(snapshot));
  }

  private warn(message: string): void {
    for (const listener of this.warningListeners) {
      try {
        listener(message);
      } catch {
        // A failing warning listener has nowhere left to report to.
      }
    }
  }

  /** Runs a listener or handler so that its failure never escapes into the socket's event loop. */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.warn(`Internal error while following jobs: ${describeError(error)}`);
    }
  }
}

// Follows jobs to their end through the events socket, falling back to polling the status endpoint
// whenever the socket is not connected or a job has gone quiet, and recovering from history what a
// socket gap may have hidden. A job ends once, at the first terminal signal (event or status).
// Works against the ServiceApi / EventStream interfaces only, so it runs the same in the app, the
// CLI and the tests.
import { ServiceError } from '../service/errors';
import { collectNodeOutputs } from '../service/outputs';
import type { ConnectionState, EventStream, JobHistory, ServiceApi } from '../service/ports';
import type { ImageMime, JobPhase, JobStatusReading, OutputFile, PreviewEvent, ServerEvent, Workflow } from '../service/types';
import { clientSideError, toJobError } from './error-explanations';
import { PendingEventBuffer } from './event-buffer';
import type { JobRecord, JobStore } from './job-store';
import { JobState } from './job-state';
import { isTerminalPhase, type JobErrorInfo, type JobSnapshot } from './types';

export interface TrackerClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemClock: TrackerClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface JobTrackerDeps {
  api: ServiceApi;
  events: EventStream;
  /** When given, phases, outputs and errors are journaled, and reconcile() has something to read. */
  jobs?: JobStore;
  clock?: TrackerClock;
  /** How often to poll a job that needs it (socket not connected, or job quiet). Default 2000. */
  pollIntervalMs?: number;
  /** waitForEnd gives up after this long (the job itself goes on). null or absent: no limit. */
  timeoutMs?: number | null;
  /** A job with no event for this long is polled even while the socket is connected. Default 5 poll intervals. */
  staleAfterMs?: number;
  /** Reads file references from an `executed` output (swappable for tests or other servers). */
  collectOutputs?: (node: string, output: unknown) => OutputFile[];
  /** How many ended jobs stay queryable through get(); older ones are forgotten. Default 200. */
  keepEnded?: number;
  /** Journaled with jobs this tracker records itself. */
  profileId?: string | null;
}

export interface TrackMeta {
  workflow?: Workflow | null;
  workflowName?: string | null;
}

export interface TrackedJob {
  readonly promptId: string;
  snapshot(): JobSnapshot;
  waitForEnd(options?: { timeoutMs?: number | null }): Promise<JobSnapshot>;
}

export interface PreviewUpdate {
  promptId: string;
  nodeId: string | null;
  mime: ImageMime;
  bytes: Uint8Array;
}

/** Waiting stopped; the job was NOT cancelled and may still finish on the server. */
export class JobTimeoutError extends Error {
  readonly promptId: string;
  readonly timeoutMs: number;
  constructor(promptId: string, timeoutMs: number) {
    super(
      `Stopped waiting for job ${promptId} after ${formatDuration(timeoutMs)}. The job was not cancelled: it may still be running on the server.`,
    );
    this.name = 'JobTimeoutError';
    this.promptId = promptId;
    this.timeoutMs = timeoutMs;
  }
}

export class TrackerDisposedError extends Error {
  constructor(promptId: string) {
    super(`Stopped following job ${promptId} because the job tracker was shut down. The job was not cancelled.`);
    this.name = 'TrackerDisposedError';
  }
}

interface Waiter {
  resolve(snapshot: JobSnapshot): void;
  reject(error: Error): void;
  timer: unknown;
}

/** What the server says about a job we are unsure of (used by reconcile and lost-job checks). */
type Verdict =
  | { kind: 'ended'; reading: JobStatusReading; history: JobHistory | null }
  | { kind: 'in_flight'; reading: JobStatusReading }
  | { kind: 'unknown' }
  | { kind: 'unreachable'; reason: string };

const HISTORY_ATTEMPTS = 3;
const NEVER_SUBMITTED = clientSideError(
  'The job never reached the server: Flowdeck stopped before the server confirmed it, and the server has no record of it. Run the workflow again.',
  'The server does not know this job (never reached the server).',
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

  private readonly jobs = new Map<string, JobState>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly persistChains = new Map<string, Promise<void>>();
  private readonly buffer = new PendingEventBuffer();
  private readonly updateListeners = new Set<(job: JobSnapshot) => void>();
  private readonly previewListeners = new Set<(preview: PreviewUpdate) => void>();
  private readonly warningListeners = new Set<(message: string) => void>();
  private readonly sleepers = new Set<{ timer: unknown; resolve: () => void }>();
  private readonly unsubscribe: Array<() => void> = [];
  /** The job the socket last showed executing: type-1 previews and TEXT frames carry no prompt id. */
  private currentPrompt: string | null = null;
  private pollTimer: unknown = null;
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
    this.lastState = this.events.state;
    this.unsubscribe.push(this.events.onEvent((event) => this.guard(() => this.handleEvent(event))));
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
      for (const event of this.buffer.take(promptId)) {
        if (job.ended) break;
        this.handleJobEvent(job, event);
      }
      this.afterChange();
    } else {
      if (meta.workflowName && !job.workflowName) job.workflowName = meta.workflowName;
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
      if (!job.ended) void this.poll(job);
    }, 250);
  }

  onUpdate(listener: (job: JobSnapshot) => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  onPreview(listener: (preview: PreviewUpdate) => void): () => void {
    this.previewListeners.add(listener);
    return () => this.previewListeners.delete(listener);
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
  waitForEnd(promptId: string, options: { timeoutMs?: number | null } = {}): Promise<JobSnapshot> {
    const job = this.jobs.get(promptId);
    if (!job) return Promise.reject(new Error(`Job ${promptId} is not being followed.`));
    if (job.ended) return this.settled(promptId).then(() => job.snapshot());
    if (this.disposed) return Promise.reject(new TrackerDisposedError(promptId));
    const timeoutMs = options.timeoutMs === undefined ? this.timeoutMs : options.timeoutMs;
    return new Promise<JobSnapshot>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, timer: null };
      if (timeoutMs !== null && timeoutMs !== undefined) {
        waiter.timer = this.clock.setTimeout(() => {
          this.waiters.get(promptId)?.delete(waiter);
          reject(new JobTimeoutError(promptId, timeoutMs));
        }, timeoutMs);
      }
      let set = this.waiters.get(promptId);
      if (!set) this.waiters.set(promptId, (set = new Set()));
      set.add(waiter);
    });
  }

  /**
   * Settles every job the journal has in flight on this tracker's server: each is asked of the
   * server and either followed again or finished with its real outcome. A job the server cannot be
   * asked about now is followed (polled) until it can. Returns the snapshots after the check.
   */
  async reconcile(): Promise<JobSnapshot[]> {
    if (!this.store || this.disposed) return [];
    const records = (await this.store.listInFlight()).filter(
      (r) => r.serverKind === this.api.profile.kind && sameBaseUrl(r.baseUrl, this.api.profile.baseUrl),
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
    if (this.pollTimer !== null) this.clock.clearTimeout(this.pollTimer);
    this.pollTimer = null;
    for (const sleeper of this.sleepers) {
      this.clock.clearTimeout(sleeper.timer);
      sleeper.resolve();
    }
    this.sleepers.clear();
    for (const [promptId, set] of this.waiters) {
      for (const waiter of set) {
        if (waiter.timer !== null) this.clock.clearTimeout(waiter.timer);
        waiter.reject(new TrackerDisposedError(promptId));
      }
    }
    this.waiters.clear();
    this.buffer.clear();
    if (this.expecting) this.events.setExpectingActivity(false);
    this.expecting = false;
    await Promise.all([...this.persistChains.values()]);
  }

  // ---- events ---------------------------------------------------------------------------------

  private handleEvent(event: ServerEvent): void {
    if (this.disposed) return;
    switch (event.type) {
      case 'status':
      case 'notification':
      case 'feature_flags':
      case 'unknown':
        return;
      case 'preview':
        this.handlePreview(event);
        return;
      case 'progress_text': {
        const job = this.attributed(null);
        if (job) {
          this.handleJobEvent(job, event);
          this.afterChange();
        }
        return;
      }
      default:
        break;
    }
    const promptId = event.promptId ?? this.currentPrompt;
    this.noteExecuting(event, promptId);
    if (promptId === null) return;
    const job = this.jobs.get(promptId);
    if (!job) {
      this.buffer.add(promptId, event);
      return;
    }
    if (job.ended) return;
    this.handleJobEvent(job, event);
    this.afterChange();
  }

  /** Keeps `currentPrompt` on the job this socket shows executing (any job, ours or not). */
  private noteExecuting(event: ServerEvent, promptId: string | null): void {
    switch (event.type) {
      case 'execution_start':
      case 'execution_cached':
      case 'progress':
      case 'progress_state':
      case 'executed':
        this.currentPrompt = promptId;
        return;
      case 'executing':
        if (event.node !== null) this.currentPrompt = promptId;
        else if (promptId === null || this.currentPrompt === promptId) this.currentPrompt = null;
        return;
      case 'execution_success':
      case 'execution_error':
      case 'execution_interrupted':
        if (this.currentPrompt === promptId) this.currentPrompt = null;
        return;
      default:
        return;
    }
  }

  private handleJobEvent(job: JobState, event: ServerEvent): void {
    const now = this.clock.now();
    switch (event.type) {
      case 'execution_success':
        job.lastActivityAt = now;
        void this.finishByEvent(job, 'succeeded', 'execution_success', null);
        return;
      case 'execution_error':
        job.lastActivityAt = now;
        void this.finishByEvent(
          job,
          'failed',
          'execution_error',
          toJobError({
            exceptionType: event.exceptionType,
            message: event.exceptionMessage,
            nodeId: event.nodeId,
            nodeType: event.nodeType,
            traceback: event.traceback,
          }),
        );
        return;
      case 'execution_interrupted':
        job.lastActivityAt = now;
        void this.finishByEvent(job, 'cancelled', 'execution_interrupted', null);
        return;
      default: {
        const before = job.phase;
        const added = job.apply(event, now, this.collect);
        if (added.length > 0) this.journal(job, (store) => store.addOutputs(job.promptId, added));
        if (job.phase !== before) this.journalPhase(job);
        this.emit(job);
      }
    }
  }

  private handlePreview(event: PreviewEvent): void {
    const job = this.attributed(event.promptId);
    if (!job) return;
    const now = this.clock.now();
    const nodeId = event.nodeId ?? event.displayNodeId ?? job.currentNode;
    job.setPreview({ nodeId, mime: event.mime, bytes: event.bytes, receivedAt: now });
    job.lastActivityAt = now;
    if (job.markRunning(now)) this.journalPhase(job);
    for (const listener of this.previewListeners) {
      this.guard(() => listener({ promptId: job.promptId, nodeId, mime: event.mime, bytes: event.bytes }));
    }
    this.emit(job);
  }

  /**
   * The followed, still active job a frame belongs to: the prompt id it carries, else the job this
   * socket shows executing, else (having missed that) the only job of ours known to be running.
   */
  private attributed(promptId: string | null): JobState | null {
    const id = promptId ?? this.currentPrompt;
    if (id !== null) {
      const job = this.jobs.get(id);
      return job && !job.ended ? job : null;
    }
    let only: JobState | null = null;
    for (const job of this.jobs.values()) {
      if (job.ended || job.phase !== 'running') continue;
      if (only) return null;
      only = job;
    }
    return only;
  }

  private handleState(state: ConnectionState): void {
    if (this.disposed) return;
    const previous = this.lastState;
    this.lastState = state;
    if (state !== 'connected') {
      // Whatever happens now may never reach us as an event: remember to ask history at the end.
      for (const job of this.jobs.values()) if (!job.ended) job.sawGap = true;
      // We may miss the running job's end; a stale "current job" would misattribute previews.
      this.currentPrompt = null;
      if (previous === 'connected' && this.pollTimer !== null) {
        // Switch to polling now rather than at the next scheduled tick.
        this.clock.clearTimeout(this.pollTimer);
        this.pollTimer = null;
      }
      this.schedulePoll(0);
    } else if (previous !== 'connected') {
      // Back online: the jobs may have moved (or ended) meanwhile; ask now rather than wait.
      for (const job of this.jobs.values()) if (!job.ended && job.sawGap) void this.poll(job);
    }
  }

  // ---- polling --------------------------------------------------------------------------------

  private schedulePoll(delay: number): void {
    if (this.disposed || this.pollTimer !== null) return;
    if (![...this.jobs.values()].some((job) => !job.ended)) return;
    this.pollTimer = this.clock.setTimeout(() => {
      this.pollTimer = null;
      this.guard(() => this.tick());
    }, delay);
  }

  private tick(): void {
    if (this.disposed) return;
    const now = this.clock.now();
    const connected = this.events.state === 'connected';
    for (const job of this.jobs.values()) {
      if (job.ended || job.finishing || job.pollInFlight) continue;
      if (job.pollAlways || !connected || now - job.lastActivityAt >= this.staleAfterMs) void this.poll(job);
    }
    this.schedulePoll(this.pollIntervalMs);
  }

  private async poll(job: JobState): Promise<void> {
    if (job.ended || job.finishing || job.pollInFlight || this.disposed) return;
    job.pollInFlight = true;
    try {
      if (job.needsCheck) {
        await this.checkLost(job);
        return;
      }
      let reading: JobStatusReading;
      try {
        reading = await this.api.getJobStatus(job.promptId);
      } catch (error) {
        if (isNotFound(error)) {
          await this.checkLost(job);
          return;
        }
        this.warn(`Could not poll job ${job.promptId}: ${describe(error)}`);
        return;
      }
      if (this.disposed || job.ended || job.finishing) return;
      if (isTerminalPhase(reading.phase)) {
        await this.finishByStatus(job, reading, null);
        return;
      }
      if (!reading.known && this.api.profile.kind === 'local') {
        // A local status is derived from queue and history; an unclassified answer may mean the
        // server has forgotten the job (restarted): check directly.
        await this.checkLost(job);
        return;
      }
      this.applyInFlight(job, reading);
    } finally {
      job.pollInFlight = false;
    }
  }

  private applyInFlight(job: JobState, reading: JobStatusReading): void {
    const before = job.phase;
    const rawBefore = job.rawStatus;
    if (reading.phase === 'running') job.markRunning(this.clock.now(), reading.raw);
    else job.rawStatus = reading.raw;
    if (job.phase !== before || job.rawStatus !== rawBefore) {
      this.journalPhase(job);
      this.emit(job);
    }
    this.afterChange();
  }

  /** Asks the server directly whether it still knows `job`; ends it as lost when it does not. */
  private async checkLost(job: JobState): Promise<void> {
    const verdict = await this.askServer(job.promptId);
    if (this.disposed || job.ended || job.finishing) return;
    await this.applyVerdict(job, verdict);
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
      const history = await this.fetchHistory(job.promptId);
      this.mergeHistory(job, history, phase);
    }
    this.end(job, phase, raw);
  }

  private async finishByStatus(job: JobState, reading: JobStatusReading, known: JobHistory | null): Promise<void> {
    if (job.ended || job.finishing) return;
    job.finishing = true;
    job.rawStatus = reading.raw;
    this.emit(job);
    const history = known ?? (await this.fetchHistory(job.promptId));
    this.mergeHistory(job, history, reading.phase);
    if (reading.phase === 'failed' && !job.error) {
      job.error = toJobError({
        exceptionType: null,
        message: reading.errorMessage ?? `The server reported the job as "${reading.raw}" without further detail.`,
      });
    }
    this.end(job, reading.phase, reading.raw);
  }

  private mergeHistory(job: JobState, history: JobHistory | null, phase: JobPhase): void {
    if (!history || job.ended) return;
    const added = job.addOutputs(history.outputs);
    if (added.length > 0) this.journal(job, (store) => store.addOutputs(job.promptId, added));
    if (phase === 'failed' && history.error && (!job.error || job.error.exceptionType === null)) {
      job.error = toJobError({
        exceptionType: history.error.exceptionType,
        message: history.error.exceptionMessage,
        nodeId: history.error.nodeId,
        nodeType: history.error.nodeType,
        traceback: history.error.traceback,
      });
    }
  }

  /** History of a job that has just ended; a local server may write it a moment after the last event. */
  private async fetchHistory(promptId: string): Promise<JobHistory | null> {
    for (let attempt = 1; attempt <= HISTORY_ATTEMPTS && !this.disposed; attempt += 1) {
      try {
        const history = await this.api.getHistory(promptId);
        if (history) return history;
      } catch (error) {
        this.warn(`Could not read the history of job ${promptId}: ${describe(error)}`);
        return null;
      }
      if (attempt < HISTORY_ATTEMPTS) await this.sleep(Math.min(500, Math.ceil(this.pollIntervalMs / 4)));
    }
    return null;
  }

  private end(job: JobState, phase: JobPhase, raw: string): void {
    if (job.ended) return;
    job.end(phase, raw, this.clock.now());
    if (this.currentPrompt === job.promptId) this.currentPrompt = null;
    const error = job.error;
    const outputs = [...job.outputs];
    this.journal(job, async (store) => {
      await store.updatePhase(job.promptId, phase, raw, job.progressSummary());
      if (outputs.length > 0) await store.addOutputs(job.promptId, outputs);
      await store.setError(job.promptId, error);
    });
    this.emit(job);
    void this.settled(job.promptId).then(() => {
      const set = this.waiters.get(job.promptId);
      this.waiters.delete(job.promptId);
      if (!set) return;
      const snapshot = job.snapshot();
      for (const waiter of set) {
        if (waiter.timer !== null) this.clock.clearTimeout(waiter.timer);
        waiter.resolve(snapshot);
      }
    });
    this.afterChange();
    this.forgetOldEnded();
  }

  // ---- reconciliation -------------------------------------------------------------------------

  private async reconcileOne(record: JobRecord): Promise<JobSnapshot> {
    const existing = this.jobs.get(record.promptId);
    if (existing) return existing.snapshot();
    const job = new JobState(record.promptId, this.clock.now(), { workflow: record.workflow, workflowName: record.workflowName });
    job.addOutputs(record.outputs);
    if (record.phase === 'running') job.markRunning(this.clock.now(), record.rawStatus ?? undefined);
    else job.rawStatus = record.rawStatus ?? job.rawStatus;
    job.error = record.error;
    // Everything between the last run and now went unseen.
    job.sawGap = true;
    // A local server routes a job's events only to the socket of the client id it was sent with.
    job.pollAlways = this.api.profile.kind === 'local' && record.clientId !== null && record.clientId !== this.events.clientId;
    this.jobs.set(record.promptId, job);
    job.unconfirmed = record.phase === 'submitting';
    const verdict = await this.askServer(record.promptId);
    if (!job.ended && !job.finishing) await this.applyVerdict(job, verdict);
    await this.settled(record.promptId);
    this.afterChange();
    return job.snapshot();
  }

  private async applyVerdict(job: JobState, verdict: Verdict): Promise<void> {
    job.needsCheck = verdict.kind === 'unreachable';
    switch (verdict.kind) {
      case 'ended':
        job.unconfirmed = false;
        await this.finishByStatus(job, verdict.reading, verdict.history);
        return;
      case 'in_flight':
        this.applyInFlight(job, verdict.reading);
        if (job.unconfirmed) this.journalPhase(job); // it reached the server: no longer "submitting"
        job.unconfirmed = false;
        return;
      case 'unknown': {
        if (job.cancelRequested) {
          // A local server forgets a pending job it deleted: that is the cancellation we asked for.
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
        this.emit(job);
        this.afterChange();
        return;
    }
  }

  /**
   * Whether the server knows a job, and how it stands. The cloud's status endpoint answers 404 for
   * a job it does not know. A local server has no status endpoint (the client derives it), so a job
   * there is known only if its queue or its history holds it.
   */
  private async askServer(promptId: string): Promise<Verdict> {
    let reading: JobStatusReading;
    try {
      reading = await this.api.getJobStatus(promptId);
    } catch (error) {
      if (isNotFound(error)) return this.api.profile.kind === 'local' ? this.askLocal(promptId, null) : { kind: 'unknown' };
      return { kind: 'unreachable', reason: describe(error) };
    }
    if (isTerminalPhase(reading.phase)) return { kind: 'ended', reading, history: null };
    if (this.api.profile.kind === 'local') return this.askLocal(promptId, reading);
    return { kind: 'in_flight', reading };
  }

  private async askLocal(promptId: string, reading: JobStatusReading | null): Promise<Verdict> {
    try {
      // Queue first, then history: a job leaving the queue meanwhile is in history by then.
      const queue = await this.api.getQueue();
      if (queue.running.some((e) => e.promptId === promptId)) {
        return { kind: 'in_flight', reading: reading?.phase === 'running' ? reading : { phase: 'running', raw: 'in_progress', known: true } };
      }
      if (queue.pending.some((e) => e.promptId === promptId)) {
        return { kind: 'in_flight', reading: reading?.phase === 'pending' ? reading : { phase: 'pending', raw: 'pending', known: true } };
      }
      const history = await this.api.getHistory(promptId);
      if (history && isTerminalPhase(history.reading.phase)) return { kind: 'ended', reading: history.reading, history };
      if (history) return { kind: 'in_flight', reading: history.reading };
      return { kind: 'unknown' };
    } catch (error) {
      return { kind: 'unreachable', reason: describe(error) };
    }
  }

  // ---- journal --------------------------------------------------------------------------------

  private journalNew(job: JobState, meta: TrackMeta): void {
    this.journal(job, async (store) => {
      if (await store.get(job.promptId)) return;
      await store.recordSubmitted({
        promptId: job.promptId,
        profileId: this.profileId,
        serverKind: this.api.profile.kind,
        baseUrl: this.api.profile.baseUrl,
        clientId: this.events.clientId,
        workflow: meta.workflow ?? null,
        workflowName: meta.workflowName ?? null,
      });
    });
  }

  private journalPhase(job: JobState): void {
    const phase = job.phase;
    const raw = job.rawStatus;
    const progress = job.progressSummary();
    this.journal(job, (store) => store.updatePhase(job.promptId, phase, raw, progress));
  }

  /** Queues a journal write for `job`, in order with its earlier writes. */
  private journal(job: JobState, write: (store: JobStore) => Promise<unknown>): void {
    const store = this.store;
    if (!store) return;
    const previous = this.persistChains.get(job.promptId) ?? Promise.resolve();
    const next = previous.then(() => write(store)).then(
      () => undefined,
      (error: unknown) => this.warn(`Could not record job ${job.promptId} in the journal: ${describe(error)}`),
    );
    this.persistChains.set(job.promptId, next);
    void next.then(() => {
      if (this.persistChains.get(job.promptId) === next) this.persistChains.delete(job.promptId);
    });
  }

  private settled(promptId: string): Promise<void> {
    return this.persistChains.get(promptId) ?? Promise.resolve();
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
    this.schedulePoll(this.pollIntervalMs);
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
      this.warn(`Internal error while following jobs: ${describe(error)}`);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const sleeper = { timer: null as unknown, resolve };
      sleeper.timer = this.clock.setTimeout(() => {
        this.sleepers.delete(sleeper);
        resolve();
      }, ms);
      this.sleepers.add(sleeper);
    });
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof ServiceError && error.kind === 'not_found';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sameBaseUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '').toLowerCase() === b.replace(/\/+$/, '').toLowerCase();
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  return seconds < 120 ? `${Number(seconds.toFixed(1))} s` : `${Number((seconds / 60).toFixed(1))} min`;
}

// One hot folder at work: finds files (watcher + start-up scan + periodic rescan), waits until each
// is completely written, keys it by content, and runs it through the workflow with at most
// `concurrency` jobs in flight, journaling every step so a crash loses nothing and repeats nothing.
//
// A file's life (journal states in brackets):
//   settling -> hashed [discovered] -> uploading [uploading] -> prompt id recorded [submitting]
//   -> accepted [submitted] -> outputs delivered [done] | [failed]
// After a restart: [discovered]/[uploading] start again from the upload (uploads are idempotent);
// [submitting] asks the server whether the id reached it, and sends it again only if it did not;
// [submitted] is never sent again: its outcome is read from the server (status, queue, history).
//
// This class keeps the queues, the jobs in flight, failures and idleness; its collaborators do the
// rest: FileIntake finds and keys files, EntryBook keeps entries, paths, journal and table in step,
// SubmitAndCollect talks to the server, PauseGate decides whether new files may go, and FolderFeed
// publishes rows, status and warnings.
import { KeyedTimers } from '@shared/keyed-timers';
import { parseInputRef, type InputRef } from '@main/workflow/edit';
import { isInside, type HotFolderConfig } from './config';
import { hashFile, type HashResult } from './content-hash';
import { prepareRetry } from './retry-failed';
import { EntryBook } from './entry-book';
import { FileIntake } from './file-intake';
import { FolderFeed } from './folder-feed';
import type { EntryRecord, FailedPhase } from './journal';
import { Limiter } from './limiter';
import { PauseGate } from './pause-gate';
import { reactionTo, retryDelay } from './policy';
import { CollectError, FileGoneError, StoppedError, type ActivePhase, type Entry } from './runner-entry';
import { PoolFailover } from './pool-failover';
import { SubmitAndCollect } from './submit-and-collect';
import type { IdleReason, RunnerDeps, RunnerOptions } from './runner-deps';
import type { HotFileRow, HotFolderStatus, PauseKind } from './types';
import type { PoolEvent, PoolMember, ServerPool } from '@main/pool/server-pool';

export class FolderRunner {
  readonly config: HotFolderConfig;
  private readonly deps: RunnerDeps;
  private readonly options: RunnerOptions;
  private readonly hashing = new Limiter(8);
  private readonly feed: FolderFeed;
  private readonly book: EntryBook;
  private readonly intake: FileIntake;
  private readonly jobs: SubmitAndCollect;
  private readonly gate: PauseGate;
  private readonly runQueue: Entry[] = [];
  /** Entries the server already has: collected even while the folder is paused. */
  private readonly collectQueue: Entry[] = [];
  private readonly delayed = new KeyedTimers<Entry>();
  private readonly active = new Map<Entry, ActivePhase>();
  private readonly pool: ServerPool;
  private readonly bindRef: InputRef;
  /** Files whose job is on a pool server that stopped answering, and the jobs given up there. */
  private readonly failover: PoolFailover;
  private unsubscribePool: (() => void) | null = null;
  private readonly idleWaiters = new Set<(reason: IdleReason) => void>();
  private readonly phaseWaiters = new Set<() => void>();
  /** Why the folder's pool cannot be used (RunnerOptions.poolUnusable); null: it can. */
  private readonly poolUnusable: string | null;
  private stopping = false;
  private stopped = false;
  private busySinceDrain = false;

  constructor(config: HotFolderConfig, deps: RunnerDeps, options: RunnerOptions) {
    this.config = config;
    this.deps = deps;
    this.options = options;
    this.pool = deps.pool;
    this.poolUnusable = options.poolUnusable ?? null;
    this.bindRef = parseInputRef(config.bind);
    const excluded = [config.doneDir, config.failedDir, config.outputDir].filter((dir) => isInside(dir, config.inputDir));
    const now = (): number => deps.now();
    this.feed = new FolderFeed({ folderId: config.id, emit: (event) => deps.emit(event), now, status: () => this.status() });
    this.book = new EntryBook({ config, excluded, journal: deps.journal, feed: this.feed, now });
    this.failover = new PoolFailover({
      book: this.book,
      feed: this.feed,
      jobs: deps.jobs,
      now,
      reconcileAfterMs: () => this.pool.reconcileAfterMs,
      markDown: (member, cause) => this.pool.markDown(member, cause),
      stopping: () => this.stopping,
      requeue: (entry) => this.enqueue(entry, true),
      superseded: () => {
        this.pump();
        this.checkIdle();
      },
    });
    this.intake = new FileIntake({
      config,
      excluded,
      watch: options.watch,
      hashing: this.hashing,
      book: this.book,
      feed: this.feed,
      now,
      host: {
        isStopping: () => this.stopping,
        markBusy: () => {
          this.busySinceDrain = true;
        },
        intakeEnded: () => {
          this.pump();
          this.checkIdle();
        },
        rescanEnded: () => this.checkIdle(),
        adopt: (record) => this.adopt(record),
        enqueue: (entry) => this.enqueue(entry),
        fail: (entry, phase, reason) => this.fail(entry, phase, reason),
      },
    });
    this.jobs = new SubmitAndCollect({
      config,
      bindRef: this.bindRef,
      jobs: deps.jobs,
      profileId: deps.profileId,
      sink: deps.sink,
      emit: (event) => deps.emit(event),
      now,
      newPromptId: deps.newPromptId,
      prepareWorkflow: deps.prepareWorkflow,
      book: this.book,
      host: {
        isStopping: () => this.stopping,
        setPhase: (entry, phase) => this.setPhase(entry, phase),
        fail: (entry, phase, reason) => this.fail(entry, phase, reason),
        accepted: () => {
          if (this.gate.pausedForAccount) this.resume();
        },
        movesLostJobs: () => !this.pool.isSingle,
        warn: (message) => this.feed.warn(message),
      },
    });
    this.gate = new PauseGate({ recheckMs: config.pauseRecheckMs, isStopping: () => this.stopping, probe: () => this.pump() }, options.paused === true);
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  async start(): Promise<void> {
    const { entries, paths } = await this.deps.journal.load(this.config.id);
    this.book.loadPaths(paths);
    for (const record of entries) this.adopt(record);
    this.unsubscribePool = this.pool.on((event) => this.onPoolEvent(event));
    if (this.options.watch) await this.intake.watch();
    this.intake.startScan(() => {
      this.book.forgetVanished();
      this.feed.publishStatus();
      this.pump();
      this.checkIdle();
    });
    this.feed.publishStatus();
    this.pump();
  }

  /**
   * Stops taking files. Uploads and submissions under way finish first (so a file is either
   * accepted by the server, and journaled so, or not sent at all); jobs running on the server are
   * left to it and collected on the next start.
   */
  async stop(): Promise<void> {
    if (this.stopping) return this.waitForPhases();
    this.stopping = true;
    this.unsubscribePool?.();
    this.clearTimers();
    await this.intake.close();
    await this.waitForPhases();
    this.stopped = true;
    await this.deps.journal.flushed().catch(() => undefined);
    for (const resolve of this.idleWaiters) resolve('drained');
    this.idleWaiters.clear();
  }

  private waitForPhases(): Promise<void> {
    const ready = (): boolean => [...this.active.values()].every((phase) => phase === 'following');
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (!ready()) return;
        this.phaseWaiters.delete(check);
        resolve();
      };
      this.phaseWaiters.add(check);
    });
  }

  private setPhase(entry: Entry, phase: ActivePhase | null): void {
    if (phase === null) this.active.delete(entry);
    else this.active.set(entry, phase);
    for (const check of [...this.phaseWaiters]) check();
  }

  private clearTimers(): void {
    this.intake.cancelRescan();
    this.gate.dispose();
    this.delayed.cancelAll();
    this.failover.clear();
  }

  // ---- public state -----------------------------------------------------------------------------

  status(): HotFolderStatus {
    // The user's own pause shows as such, as it does over any other (PauseGate.pauseFor).
    const noPool = this.poolUnusable !== null && this.gate.kind !== 'user';
    return {
      id: this.config.id,
      name: this.config.name,
      counters: this.feed.counters(),
      paused: noPool || this.gate.paused,
      pauseKind: noPool ? 'servers_down' : this.gate.kind,
      pauseReason: noPool ? this.poolUnusable : this.gate.reason,
      scanned: this.intake.scanned,
      idle: !this.busy(),
    };
  }

  files(): HotFileRow[] {
    return this.feed.list();
  }

  pause(): void {
    if (this.stopping) return;
    this.gate.pauseByUser();
    this.feed.publishStatus();
    this.checkIdle();
  }

  resume(): void {
    if (this.stopping || !this.gate.paused) return;
    this.gate.lift();
    this.feed.publishStatus();
    this.pump();
  }

  /** Sends failed files again (all, or those at the given paths); returns how many. */
  async retryFailed(paths?: readonly string[]): Promise<number> {
    let count = 0;
    const inspect = (path: string): Promise<HashResult | null> => this.hashing.run(() => hashFile(path, { inspect: true })).catch(() => null);
    const again = { inspect, fail: (entry: Entry, reason: string) => this.fail(entry, 'input', reason), save: (entry: Entry) => this.book.save(entry) };
    for (const entry of this.book.all()) {
      if (paths && !paths.includes(entry.record.path)) continue;
      const outcome = await prepareRetry(entry, again);
      if (outcome === 'queued') this.enqueue(entry);
      if (outcome !== 'skipped') count += 1;
    }
    this.pump();
    return count;
  }

  /** Resolves when nothing is settling, queued or in flight ('drained'), or when the folder is paused with nothing left it may do ('paused'). */
  whenIdle(): Promise<IdleReason> {
    const now = this.idleReason();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  // ---- entries ----------------------------------------------------------------------------------

  /** Takes a journal record into memory (at start-up, or when a new content is keyed). */
  private adopt(record: EntryRecord): Entry {
    const entry = this.book.adopt(record);
    if (record.state === 'submitted' || record.state === 'submitting') {
      this.busySinceDrain = true;
      this.enqueue(entry);
    }
    return entry;
  }

  private enqueue(entry: Entry, front = false): void {
    if (entry.where !== 'idle' || this.stopping) return;
    this.busySinceDrain = true;
    entry.where = 'queued';
    const queue = entry.record.state === 'submitted' ? this.collectQueue : this.runQueue;
    if (front) queue.unshift(entry);
    else queue.push(entry);
    this.book.refreshRow(entry);
  }

  /** A pool of one keeps the folder's own concurrency; a larger pool caps each server instead. */
  private capacity(): number {
    return this.pool.isSingle ? this.config.concurrency : Number.POSITIVE_INFINITY;
  }

  private pump(): void {
    if (this.stopping) return;
    if (this.poolUnusable !== null) {
      // Not even a recorded send is asked about or collected: its server may be one of the pool's.
      this.feed.publishStatus();
      return;
    }
    while (this.active.size < this.capacity()) {
      const collecting = this.collectQueue.shift();
      if (collecting) {
        this.launchPinned(collecting);
        continue;
      }
      if (this.gate.holdsNewWork()) break;
      const entry = this.runQueue[0];
      if (!entry) break;
      // A recorded send is asked about where it went before anything is sent again.
      if (entry.record.state === 'submitting' && entry.record.promptId) {
        this.runQueue.shift();
        this.gate.letThrough();
        this.launchPinned(entry);
        continue;
      }
      const choice = this.pool.choose(this.config.workflow, [this.bindRef], entry.refusedBy);
      if (choice.kind === 'busy') break;
      if (choice.kind === 'down') {
        if (this.gate.pauseFor('servers_down', choice.reason)) this.checkIdle();
        break;
      }
      this.runQueue.shift();
      if (choice.kind === 'none') {
        this.failNow(entry, 'submit', choice.reason);
        continue;
      }
      this.gate.letThrough();
      this.launch(entry, choice.member);
    }
    this.feed.publishStatus();
  }

  /** An entry whose job went to a known server: it is asked there, whichever server new work goes to. */
  private launchPinned(entry: Entry): void {
    const r = entry.record;
    const member = this.pool.memberFor(r.baseUrl);
    if (!member) {
      const others = this.pool.members.map((m) => m.baseUrl).join(', ');
      this.failNow(
        entry,
        'collect',
        `The job ${r.promptId ?? '?'} was sent to ${r.baseUrl ?? 'an unknown server'}, not to the server${this.pool.isSingle ? '' : 's'} this folder uses now (${others}); its results cannot be collected here.`,
      );
      return;
    }
    if (member.down !== null) {
      this.failover.orphan(entry, member);
      return;
    }
    this.launch(entry, member);
  }

  /** Fails an entry without a server (none can run it): active until the journal has it, so the folder is not idle before. */
  private failNow(entry: Entry, phase: FailedPhase, reason: string): void {
    entry.where = 'active';
    this.setPhase(entry, 'sending');
    void this.fail(entry, phase, reason)
      .catch((error: unknown) => this.feed.warn(`Internal error with ${entry.record.path}: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.setPhase(entry, null);
        if (entry.where === 'active') entry.where = 'idle';
        this.pump();
        this.checkIdle();
      });
  }

  private launch(entry: Entry, member: PoolMember): void {
    entry.where = 'active';
    entry.retryAt = null;
    this.pool.take(member);
    this.setPhase(entry, entry.record.state === 'submitted' ? 'following' : 'sending');
    void this.jobs
      .run(entry, member)
      .catch((error: unknown) => this.react(entry, error, member))
      .catch((error: unknown) => this.feed.warn(`Internal error with ${entry.record.path}: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        const state = entry.record.state;
        this.pool.release(member, state === 'done' ? 'done' : state === 'failed' ? 'failed' : 'moved');
        this.setPhase(entry, null);
        if (entry.where === 'active') entry.where = 'idle';
        this.pump();
        this.checkIdle();
      });
  }

  // ---- pool failover ----------------------------------------------------------------------------

  private onPoolEvent(event: PoolEvent): void {
    if (this.stopping || event.type !== 'rejoined') return;
    this.failover.rejoined(event.member);
    if (this.gate.kind === 'servers_down') {
      this.gate.lift();
      this.feed.publishStatus();
    }
    this.pump();
  }

  /** What a failure does: pause the folder, retry the file later, or fail it. */
  private async react(entry: Entry, error: unknown, member: PoolMember): Promise<void> {
    if (error instanceof StoppedError || (this.stopping && this.stopped)) return;
    if (this.stopping && entry.record.state === 'submitted') return; // collected on the next start
    const r = entry.record;
    if (error instanceof FileGoneError) {
      this.feed.warn(error.message);
      await this.book.forgetEntry(entry);
      return;
    }
    const collecting = error instanceof CollectError;
    const cause = collecting ? error.cause : error;
    if (!this.pool.isSingle && !this.stopping && (await this.failover.react(entry, cause, member))) return;
    const reaction = reactionTo(cause);
    const phase: FailedPhase = collecting || r.state === 'submitted' ? 'collect' : 'submit';
    if (reaction.kind === 'fail' || this.stopping) {
      if (this.stopping && reaction.kind !== 'fail') {
        // Shutting down mid-retry: leave the journal as it is; the next start carries on.
        if (r.state === 'uploading') await this.book.setState(entry, 'discovered');
        return;
      }
      r.attempts += 1;
      await this.fail(entry, phase, reaction.reason);
      return;
    }
    if (reaction.kind === 'pause') {
      this.autoPause(reaction.pauseKind, reaction.reason);
      if (r.state !== 'submitted') {
        // Refused outright (401/402/429): the server did not take it, so it waits for the resume,
        // first in line (the same id may be sent later: the server never had it).
        if (r.state === 'uploading' || r.state === 'submitting') await this.book.setState(entry, 'discovered');
        entry.where = 'idle';
        this.enqueue(entry, true);
        return;
      }
      // Collecting a job the server has: retried with backoff like a network failure.
    }
    r.attempts += 1;
    if (r.attempts >= this.config.retry.maxAttempts) {
      await this.fail(entry, phase, `${reaction.reason} (gave up after ${r.attempts} attempts)`);
      return;
    }
    // An upload that failed has sent nothing; a submit whose answer was lost keeps its recorded id
    // (state submitting), and the retry asks the server before sending again.
    if (r.state === 'uploading') r.state = 'discovered';
    const delay = retryDelay(r.attempts, this.config.retry, this.deps.random);
    entry.retryAt = this.deps.now() + delay;
    r.reason = `Attempt ${r.attempts} failed: ${reaction.reason} Trying again in ${Math.ceil(delay / 1000)} s.`;
    await this.book.save(entry);
    entry.where = 'delayed';
    this.book.refreshRow(entry);
    this.delayed.set(entry, delay, () => {
      entry.where = 'idle';
      this.enqueue(entry);
      this.pump();
    });
  }

  private autoPause(kind: Exclude<PauseKind, 'user'>, serverText: string): void {
    if (!this.gate.pauseFor(kind, serverText)) return;
    this.feed.publishStatus();
    this.checkIdle();
  }

  private async fail(entry: Entry, phase: FailedPhase, reason: string): Promise<void> {
    const r = entry.record;
    r.failedPhase = phase;
    r.reason = reason;
    r.attempts = Math.max(1, r.attempts);
    await this.book.setState(entry, 'failed');
    await this.book.disposeInputs(entry);
  }

  // ---- idleness ---------------------------------------------------------------------------------

  private busy(): boolean {
    return (
      !this.intake.scanned ||
      this.intake.scanInProgress ||
      this.intake.pending > 0 ||
      this.runQueue.length > 0 ||
      this.collectQueue.length > 0 ||
      this.delayed.size > 0 ||
      this.active.size > 0 ||
      this.failover.waiting > 0
    );
  }

  private idleReason(): IdleReason | null {
    if (this.stopped) return 'drained';
    if (!this.busy()) return 'drained';
    const onlyBlocked = this.intake.scanned && this.intake.pending === 0 && this.collectQueue.length === 0 && this.active.size === 0;
    if (this.poolUnusable !== null && this.intake.scanned && this.intake.pending === 0 && this.active.size === 0) return 'paused';
    if (this.gate.paused && onlyBlocked) return 'paused';
    return null;
  }

  private checkIdle(): void {
    const reason = this.idleReason();
    if (!reason) return;
    if (reason === 'drained' && this.busySinceDrain) {
      this.busySinceDrain = false;
      this.deps.emit({ type: 'drained', folderId: this.config.id, counters: this.feed.counters() });
    }
    this.feed.publishStatus();
    const waiters = [...this.idleWaiters];
    this.idleWaiters.clear();
    for (const resolve of waiters) resolve(reason);
  }
}

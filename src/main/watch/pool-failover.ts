// A pool's answers to a hot folder's failed file. A file whose job is on a server that stopped
// answering waits for it: collected from it when it answers again, or, once the pool's reconcile
// deadline (counted from when the server stopped answering) has passed, run again on another
// server. A job given up this way is remembered: should its server come back with it unfinished,
// it is cancelled there; if it finished, its outputs are never collected (the entry no longer
// points at it), so one file yields the outputs of exactly one job. A file over one server's
// upload limits tries the others.
import { KeyedTimers } from '@shared/keyed-timers';
import type { JobStore } from '@main/jobs/job-store';
import { cancelLateJob } from '@main/pool/late-jobs';
import { isUnreachable, refusedBeforeSending } from '@main/pool/failure-kinds';
import type { PoolMember } from '@main/pool/server-pool';
import type { EntryBook } from './entry-book';
import type { FolderFeed } from './folder-feed';
import { JobLostError, type Entry } from './runner-entry';

export interface PoolFailoverDeps {
  book: EntryBook;
  feed: FolderFeed;
  jobs: JobStore | null;
  now(): number;
  reconcileAfterMs(): number;
  /** The pool takes `member` out of rotation (it stopped answering). */
  markDown(member: PoolMember, cause: unknown): void;
  /** The folder is stopping: nothing is sent elsewhere any more. */
  stopping(): boolean;
  /** Puts a file back at the front of the folder's queue (the caller pumps). */
  requeue(entry: Entry): void;
  /** A file was given up on its silent server and queued again: the folder pumps and checks idleness. */
  superseded(): void;
}

export class PoolFailover {
  private readonly orphans = new Map<Entry, PoolMember>();
  private readonly deadlines = new KeyedTimers<Entry>();
  private readonly givenUp: { member: PoolMember; promptId: string }[] = [];

  constructor(private readonly deps: PoolFailoverDeps) {}

  /** Files waiting for a server that stopped answering. */
  get waiting(): number {
    return this.orphans.size;
  }

  /** The entry's job is on a server that stopped answering: it waits for it, up to the deadline. */
  orphan(entry: Entry, member: PoolMember): void {
    entry.where = 'orphaned';
    const since = member.down?.since ?? this.deps.now();
    const due = Math.max(0, since + this.deps.reconcileAfterMs() - this.deps.now());
    entry.record.reason = `Waiting for ${member.name}, which stopped answering: its job is collected when it answers again, or run on another server after ${Math.ceil(due / 1000)} s.`;
    this.deps.book.refreshRow(entry);
    this.orphans.set(entry, member);
    this.deadlines.set(entry, due, () => {
      void this.supersede(entry, member).catch((error: unknown) => this.deps.feed.warn(`Internal error with ${entry.record.path}: ${String(error)}`));
    });
  }

  /** `member` answers again: its waiting files are collected from it, its given-up jobs cancelled there. */
  rejoined(member: PoolMember): void {
    for (const [entry, waitsFor] of [...this.orphans]) {
      if (waitsFor !== member) continue;
      this.deadlines.cancel(entry);
      this.orphans.delete(entry);
      entry.where = 'idle';
      this.deps.requeue(entry);
    }
    for (const late of this.givenUp.filter((s) => s.member === member)) {
      this.givenUp.splice(this.givenUp.indexOf(late), 1);
      void cancelLateJob(member, late.promptId).then(
        (note) => note && this.deps.feed.warn(note),
        () => undefined,
      );
    }
  }

  /** Forgets the entry's job on `member` (remembered as given up) and queues the file to run again. */
  async runElsewhere(entry: Entry, member: PoolMember, why: string): Promise<void> {
    const r = entry.record;
    this.deps.feed.warn(`${r.relPath}: ${why}`);
    if (r.promptId) {
      this.givenUp.push({ member, promptId: r.promptId });
      await this.deps.jobs?.updatePhase(r.promptId, 'cancelled', 'superseded').catch(() => undefined);
    }
    r.promptId = null;
    r.baseUrl = null;
    r.serverKind = null;
    r.uploadedAs = null;
    r.reason = null;
    entry.workflow = null;
    entry.sentHere = false;
    await this.deps.book.setState(entry, 'discovered');
    entry.where = 'idle';
    // Queued only: the caller pumps (a run that ends here pumps once it has left the active set).
    this.deps.requeue(entry);
  }

  /**
   * A pool's own answers to a failure (true when handled): a server that stopped answering leaves
   * the rotation, and its file goes to another server at once when nothing reached it, or waits
   * for it (orphan()) when it may have the job; a file over one server's upload limits tries the others.
   */
  async react(entry: Entry, cause: unknown, member: PoolMember): Promise<boolean> {
    const r = entry.record;
    if (cause instanceof JobLostError) {
      await this.runElsewhere(entry, member, `${cause.message} The file runs again.`);
      return true;
    }
    if (isUnreachable(cause)) {
      this.deps.markDown(member, cause);
      if (r.state === 'submitting' || r.state === 'submitted') {
        this.orphan(entry, member);
        return true;
      }
      if (r.state === 'uploading') await this.deps.book.setState(entry, 'discovered');
      entry.where = 'idle';
      this.deps.requeue(entry);
      return true;
    }
    if (r.state === 'uploading' && refusedBeforeSending(cause)) {
      (entry.refusedBy ??= new Map()).set(member.baseUrl, cause instanceof Error ? cause.message : String(cause));
      await this.deps.book.setState(entry, 'discovered');
      entry.where = 'idle';
      this.deps.requeue(entry);
      return true;
    }
    return false;
  }

  /** Cancels the deadlines (the folder stops). */
  clear(): void {
    this.deadlines.cancelAll();
  }

  /** The deadline passed: the job the silent server had is given up and the file runs elsewhere. */
  private async supersede(entry: Entry, member: PoolMember): Promise<void> {
    if (!this.orphans.has(entry) || this.deps.stopping()) return;
    this.orphans.delete(entry);
    const why = `${member.name} has not answered for ${Math.round(this.deps.reconcileAfterMs() / 1000)} s; its job ${entry.record.promptId ?? ''} is given up and the file runs on another server.`;
    await this.runElsewhere(entry, member, why);
    this.deps.superseded();
  }
}

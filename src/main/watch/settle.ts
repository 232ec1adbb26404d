// "Completely written" as a hot folder decides it: a file's size and modification time must stay
// the same over an interval. Every path waits on its own timer; a change seen in between (or a
// watcher event, see touch()) starts the interval again. A path that disappears resolves to null.
// A file first seen with a modification time already older than the interval has stayed unchanged
// for it (every write moves the mtime), so it is taken at once: a start-up scan of files written
// long ago (`watch --once`) does not wait a whole interval for nothing. For the same reason a file
// is looked at again when the interval has passed since its modification time, not since it was
// seen: a file copied in 0.7 s before a scan with a 1 s interval waits 0.3 s more, not 1 s.
import { stat } from 'node:fs/promises';
import { Limiter } from './limiter';

export interface FileStamp {
  size: number;
  mtimeMs: number;
}

interface Pending {
  stamp: FileStamp | null;
  timer: ReturnType<typeof setTimeout> | null;
  promise: Promise<FileStamp | null>;
  resolve(value: FileStamp | null): void;
}

export type StatFn = (path: string) => Promise<FileStamp | null>;

export const statStamp: StatFn = async (path) => {
  try {
    const s = await stat(path);
    return s.isFile() ? { size: s.size, mtimeMs: s.mtimeMs } : null;
  } catch {
    return null;
  }
};

export class SettleQueue {
  private readonly pending = new Map<string, Pending>();
  private readonly limiter = new Limiter(64);
  private disposed = false;

  constructor(
    private readonly settleMs: number,
    private readonly statFn: StatFn = statStamp,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves with the file's stamp once it has stayed unchanged for the interval; null if it went away. */
  waitStable(path: string, seen?: FileStamp): Promise<FileStamp | null> {
    const existing = this.pending.get(path);
    if (existing) return existing.promise;
    // Unchanged for the whole interval already when the caller looked. (This trusts the file's
    // mtime to come from our clock; a time in the future just makes the file wait as a fresh one.)
    if (seen && this.now() - seen.mtimeMs >= this.settleMs) return Promise.resolve(seen);
    let resolve!: (value: FileStamp | null) => void;
    const promise = new Promise<FileStamp | null>((r) => (resolve = r));
    const entry: Pending = { stamp: null, timer: null, promise, resolve };
    this.pending.set(path, entry);
    if (seen && this.settleMs > 0) {
      // The caller has just looked: that is the first observation.
      entry.stamp = seen;
      this.schedule(path, entry, this.remainingFor(seen));
    } else {
      void this.observe(path, entry);
    }
    return promise;
  }

  /** A watcher saw the file change: measure the interval from now. */
  touch(path: string): void {
    const entry = this.pending.get(path);
    if (!entry || entry.timer === null) return;
    clearTimeout(entry.timer);
    entry.stamp = null;
    this.schedule(path, entry, 0);
  }

  get size(): number {
    return this.pending.size;
  }

  /** Resolves every wait with null and stops the timers. */
  dispose(): void {
    this.disposed = true;
    for (const [path, entry] of this.pending) this.finish(path, entry, null);
  }

  private async observe(path: string, entry: Pending): Promise<void> {
    if (this.disposed || this.pending.get(path) !== entry) return;
    const now = await this.limiter.run(() => this.statFn(path));
    if (this.disposed || this.pending.get(path) !== entry) return;
    if (now === null) {
      this.finish(path, entry, null);
      return;
    }
    const before = entry.stamp;
    if (before && before.size === now.size && before.mtimeMs === now.mtimeMs) {
      this.finish(path, entry, now);
      return;
    }
    entry.stamp = now;
    if (this.settleMs === 0 && before === null) {
      this.finish(path, entry, now);
      return;
    }
    this.schedule(path, entry, this.remainingFor(now));
  }

  /**
   * How long until `stamp` has been unchanged for the interval, counted from its modification time
   * (at least 1 ms: the file is looked at again before it is taken; a time in the future counts
   * from now).
   */
  private remainingFor(stamp: FileStamp): number {
    const age = this.now() - stamp.mtimeMs;
    return age < 0 ? this.settleMs : Math.max(1, Math.min(this.settleMs, this.settleMs - age));
  }

  private schedule(path: string, entry: Pending, ms: number): void {
    entry.timer = setTimeout(() => {
      entry.timer = null;
      void this.observe(path, entry);
    }, ms);
  }

  private finish(path: string, entry: Pending, value: FileStamp | null): void {
    if (entry.timer !== null) clearTimeout(entry.timer);
    entry.timer = null;
    this.pending.delete(path);
    entry.resolve(value);
  }
}

// A small timer queue keyed by what waits: at most one pending callback per key, cancelled by key
// or all at once (on stop). Hot folders (retries, failover deadlines) and the library (download
// retries) both schedule with it instead of keeping maps of raw timers.
export class KeyedTimers<K> {
  private readonly timers = new Map<K, ReturnType<typeof setTimeout>>();
  /** `unref`: a pending callback does not keep the process alive (a CLI may exit meanwhile). */
  constructor(private readonly options: { unref?: boolean } = {}) {}

  /** Runs `task` once after `ms`, replacing what was pending for `key`. */
  set(key: K, ms: number, task: () => void): void {
    this.cancel(key);
    const timer = setTimeout(
      () => {
        this.timers.delete(key);
        task();
      },
      Math.max(0, ms),
    );
    // Node's timers have unref; a browser's are numbers (this file is shared with the renderer).
    if (this.options.unref) (timer as { unref?: () => void }).unref?.();
    this.timers.set(key, timer);
  }

  has(key: K): boolean {
    return this.timers.has(key);
  }

  get size(): number {
    return this.timers.size;
  }

  /** Cancels what was pending for `key`; false when nothing was. */
  cancel(key: K): boolean {
    const timer = this.timers.get(key);
    if (timer === undefined) return false;
    clearTimeout(timer);
    this.timers.delete(key);
    return true;
  }

  cancelAll(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

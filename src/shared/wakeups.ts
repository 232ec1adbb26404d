// Waiters woken all at once: a caller waits for the next wakeAll() (something it watches may have
// changed; it looks again), or for its signal to abort. The library's whenSettled waits on it.
export class Wakeups {
  private readonly waiters = new Set<() => void>();

  /** Resolves at the next wakeAll(); rejects with the signal's reason if it aborts first. */
  next(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    return new Promise<void>((resolve, reject) => {
      const wake = (): void => {
        this.waiters.delete(wake);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        this.waiters.delete(wake);
        reject(signal?.reason);
      };
      this.waiters.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }
}

// The library's exclusive step, per content: tasks of the same key run one at a time, in order;
// tasks of different keys run side by side. Two arrivals of the same bytes (key: their sha256)
// must not both publish a file, and a removal must not trash a file an arrival is reusing; files
// with different bytes never meet, so a hot folder's imports of different outputs need not wait
// for each other (each one's folder fsync then shares one with its neighbours, and their rows
// commit together: see files/publish.ts syncDirectory and store/statement-queue.ts).
export class KeyedExclusive {
  /** Per key, the last task queued (the next one of that key starts after it). */
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }

  /** Resolves once every task queued so far has settled. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}

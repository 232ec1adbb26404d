// Main -> renderer sends wait until the renderer has said `renderer.ready` (its listeners are
// attached); sent earlier they would be lost. While waiting, an item replaces an earlier one with
// the same key (the latest job.update of a job, the latest connection state), and the queue is
// bounded, so a renderer that never comes up cannot make main's memory grow.
export class ReadyGate<T> {
  private ready = false;
  private readonly queue = new Map<string, T>();
  private unique = 0;

  constructor(
    private readonly deliver: (item: T) => void,
    private readonly keyOf: (item: T) => string | null = () => null,
    private readonly limit = 500,
  ) {}

  get isReady(): boolean {
    return this.ready;
  }

  get queued(): number {
    return this.queue.size;
  }

  push(item: T): void {
    if (this.ready) {
      this.deliver(item);
      return;
    }
    const key = this.keyOf(item) ?? `#${this.unique++}`;
    this.queue.delete(key); // re-inserted at the end: the latest state keeps its place in time
    this.queue.set(key, item);
    while (this.queue.size > this.limit) {
      const oldest = this.queue.keys().next();
      if (oldest.done) break;
      this.queue.delete(oldest.value);
    }
  }

  markReady(): void {
    this.ready = true;
    const items = [...this.queue.values()];
    this.queue.clear();
    for (const item of items) this.deliver(item);
  }

  /** The renderer went away (reload, crash): hold sends until it is ready again. */
  reset(): void {
    this.ready = false;
  }
}

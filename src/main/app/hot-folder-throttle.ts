// Latest-wins throttling per key: the first value of a key goes out at once, later ones within
// the interval are held and only the newest is sent when the interval ends. A folder of a
// thousand files changing at once (or a running job's progress) cannot flood the renderer, and the
// final state of every row still arrives.
export class LatestWins<T> {
  private readonly held = new Map<string, { value: T | null; timer: ReturnType<typeof setTimeout> }>();

  constructor(
    private readonly intervalMs: number,
    private readonly send: (value: T) => void,
  ) {}

  offer(key: string, value: T): void {
    const slot = this.held.get(key);
    if (slot) {
      slot.value = value;
      return;
    }
    this.send(value);
    this.open(key);
  }

  /** Sends what is held now (for keys matching `which`, or all). */
  flush(which: (key: string) => boolean = () => true): void {
    for (const [key, slot] of [...this.held]) {
      if (!which(key)) continue;
      clearTimeout(slot.timer);
      this.held.delete(key);
      if (slot.value !== null) this.send(slot.value);
    }
  }

  /** Drops what is held (for keys matching `which`, or all), sending nothing. */
  clear(which: (key: string) => boolean = () => true): void {
    for (const [key, slot] of [...this.held]) {
      if (!which(key)) continue;
      clearTimeout(slot.timer);
      this.held.delete(key);
    }
  }

  private open(key: string): void {
    const timer = setTimeout(() => {
      const slot = this.held.get(key);
      this.held.delete(key);
      if (slot && slot.value !== null) {
        this.send(slot.value);
        // What was held just went out: keep the window open for the next burst.
        this.open(key);
      }
    }, this.intervalMs);
    timer.unref?.();
    this.held.set(key, { value: null, timer });
  }
}

// Latest wins, per key: the first value for a key goes out at once, later ones within the
// interval are held and only the newest is sent when the interval ends. A folder of a thousand
// files changing at once, a pool's status or a running job's progress cannot flood the renderer,
// and the final state of every key still arrives. Shared so every throttle in the app is this one.

/** The clock a throttle runs on: the real timers, or a hand-moved one in tests. */
export interface ThrottleTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: ThrottleTimers = {
  setTimeout: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    // Node's timers have unref (a held value must not keep a CLI alive); a browser's are numbers.
    (timer as { unref?: () => void }).unref?.();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class LatestWins<T> {
  private readonly held = new Map<string, { value: T | null; timer: unknown }>();

  constructor(
    private readonly intervalMs: number,
    private readonly send: (value: T) => void,
    private readonly timers: ThrottleTimers = realTimers,
  ) {}

  offer(key: string, value: T): void {
    // An interval of 0 throttles nothing: every value goes out as it comes.
    if (this.intervalMs <= 0) {
      this.send(value);
      return;
    }
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
      this.timers.clearTimeout(slot.timer);
      this.held.delete(key);
      if (slot.value !== null) this.send(slot.value);
    }
  }

  /** Drops what is held (for keys matching `which`, or all), sending nothing. */
  clear(which: (key: string) => boolean = () => true): void {
    for (const [key, slot] of [...this.held]) {
      if (!which(key)) continue;
      this.timers.clearTimeout(slot.timer);
      this.held.delete(key);
    }
  }

  /** Keys with a window open (tests: nothing is left once a key is cleared). */
  get size(): number {
    return this.held.size;
  }

  private open(key: string): void {
    const timer = this.timers.setTimeout(() => {
      const slot = this.held.get(key);
      this.held.delete(key);
      if (slot && slot.value !== null) {
        this.send(slot.value);
        // What was held just went out: keep the window open for the next burst.
        this.open(key);
      }
    }, this.intervalMs);
    this.held.set(key, { value: null, timer });
  }
}

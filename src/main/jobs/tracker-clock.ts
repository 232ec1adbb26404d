// The tracker's sense of time: a clock tests can replace, and the sleeps it takes between history
// attempts, kept cancellable so that shutting the tracker down never leaves a wait hanging.

export interface TrackerClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: TrackerClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Sleeps on a TrackerClock that can all be ended early (each resolves, none rejects). */
export class CancellableSleeps {
  private readonly sleepers = new Set<{ timer: unknown; resolve: () => void }>();

  constructor(private readonly clock: TrackerClock) {}

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const sleeper = { timer: null as unknown, resolve };
      sleeper.timer = this.clock.setTimeout(() => {
        this.sleepers.delete(sleeper);
        resolve();
      }, ms);
      this.sleepers.add(sleeper);
    });
  }

  /** Ends every sleep now (their timers cleared, their promises resolved). */
  wakeAll(): void {
    for (const sleeper of this.sleepers) {
      this.clock.clearTimeout(sleeper.timer);
      sleeper.resolve();
    }
    this.sleepers.clear();
  }
}

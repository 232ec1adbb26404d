// The time the durations on screen are counted to ("running 12 s" on the job cards and the
// stage's chips): one clock for the whole window instead of a timer per view, so every duration
// moves in the same frame. It ticks once a second while a view uses it, and through PaintSync: while
// live previews are on screen a tick is shown with the next preview frame rather than in a frame
// of its own.
import type { PaintSync } from './paint-sync';

export const CLOCK_TICK_MS = 1000;

export class Clock {
  /** Epoch milliseconds, moved on each tick. */
  now = $state(Date.now());
  #users = 0;
  #timer: ReturnType<typeof setInterval> | null = null;
  readonly #sync: PaintSync;

  constructor(sync: PaintSync) {
    this.#sync = sync;
  }

  /** A view that shows running durations starts the clock; the returned function stops its use. */
  use(): () => void {
    this.#users += 1;
    if (this.#timer === null) {
      this.now = Date.now();
      this.#timer = setInterval(() => this.#sync.defer('clock', () => (this.now = Date.now())), CLOCK_TICK_MS);
    }
    let used = true;
    return () => {
      if (!used) return;
      used = false;
      this.#users -= 1;
      if (this.#users > 0 || this.#timer === null) return;
      clearInterval(this.#timer);
      this.#timer = null;
      this.#sync.drop('clock');
    };
  }
}

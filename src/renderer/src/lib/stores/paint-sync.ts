// One frame per live-preview step instead of two or three. In this Chromium (software compositing)
// every frame the page makes costs about as much as the picture in it, and a sampler step used to
// make several: the job.update with the step counter (one frame), the preview decoded a few
// milliseconds later (another), and the durations' once-a-second clock (a third, at its own phase).
// While live previews are on screen, changes that only move numbers (a running job's progress, the
// clock) are held here and applied in the same task as the next preview frame, so Svelte renders
// them together and Chromium paints once. Nothing waits longer than `maxWaitMs`: with no frame by
// then, what is held is applied on its own. With no preview shown for `flowMs`, nothing is held.
// Anything else (a job's phase, its outputs, an error) never comes here and shows at once.
import type { ThrottleTimers } from '@shared/latest-wins';

/** The clock PaintSync runs on: the page's timers, or a hand-moved one in tests (the throttles' timers, and the time). */
export interface SyncTimers extends ThrottleTimers {
  now(): number;
}

const pageTimers: SyncTimers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The longest a held change waits for a preview frame (a step at 2/s brings one within 500 ms). */
export const PAINT_SYNC_MAX_WAIT_MS = 500;
/** Previews count as flowing for this long after the last frame shown. */
export const PAINT_SYNC_FLOW_MS = 1500;

export class PaintSync {
  /** Latest change per key (a job's progress, the clock): a newer one replaces it. */
  readonly #held = new Map<string, () => void>();
  #timer: unknown = null;
  #lastFrameAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly maxWaitMs = PAINT_SYNC_MAX_WAIT_MS,
    private readonly flowMs = PAINT_SYNC_FLOW_MS,
    private readonly timers: SyncTimers = pageTimers,
  ) {}

  /** Whether live previews are being shown: a frame went on screen within `flowMs`. */
  get flowing(): boolean {
    return this.timers.now() - this.#lastFrameAt <= this.flowMs;
  }

  /** Changes held now (tests, and the benches through the page). */
  get held(): number {
    return this.#held.size;
  }

  /** Applies `change` now, or while previews flow with the next frame (within maxWaitMs). */
  defer(key: string, change: () => void): void {
    if (!this.flowing) {
      this.#held.delete(key);
      change();
      return;
    }
    this.#held.set(key, change);
    this.#timer ??= this.timers.setTimeout(() => {
      this.#timer = null;
      this.#applyHeld();
    }, this.maxWaitMs);
  }

  /** Forgets a held change: a newer state of the same thing was applied at once, or it went away. */
  drop(key: string): void {
    this.#held.delete(key);
    if (this.#held.size === 0) this.#stopTimer();
  }

  /** A live-preview frame goes on screen in this task: everything held is applied with it. */
  frame(): void {
    this.#lastFrameAt = this.timers.now();
    this.#applyHeld();
  }

  /** Applies everything held now (the window is going away, a test). */
  flush(): void {
    this.#applyHeld();
  }

  #applyHeld(): void {
    this.#stopTimer();
    const changes = [...this.#held.values()];
    this.#held.clear();
    for (const change of changes) change();
  }

  #stopTimer(): void {
    if (this.#timer === null) return;
    this.timers.clearTimeout(this.#timer);
    this.#timer = null;
  }
}

// The window title carries the work under way, so a minimised window still shows it:
// "3 running · 42% — Flowdeck", "2 pending — Flowdeck", or just "Flowdeck". App.svelte leaves the
// percentage out while the window is watched (window-attention.svelte.ts): the stage shows it.
import { LatestWins, type ThrottleTimers } from '@shared/latest-wins';

export function windowTitle(counts: { running: number; pending: number; progress: number | null }): string {
  const parts: string[] = [];
  if (counts.running > 0) parts.push(`${counts.running} running`);
  if (counts.running > 0 && counts.progress !== null) parts.push(`${Math.floor(Math.min(1, Math.max(0, counts.progress)) * 100)}%`);
  if (counts.running === 0 && counts.pending > 0) parts.push(`${counts.pending} pending`);
  return parts.length > 0 ? `${parts.join(' · ')} — Flowdeck` : 'Flowdeck';
}

/** Mean share done of the running jobs that report one; null when none does. */
export function meanProgress(shares: readonly (number | null)[]): number | null {
  const known = shares.filter((s): s is number => s !== null && Number.isFinite(s));
  return known.length > 0 ? known.reduce((a, b) => a + b, 0) / known.length : null;
}

/** The title's percentage moves at most this often (its counts change at once). */
export const TITLE_PROGRESS_INTERVAL_MS = 2000;

const withoutPercent = (title: string): string => title.replace(/\d+%/g, '%');

/**
 * Writes the window title. A title change is not free: the window's own frame (the title bar, the
 * taskbar entry; in headless Chromium its tab strip) is repainted in the browser process, measured
 * at about half a point of a core per change a second (bench/preview-display.ts, bitmap-2d-title).
 * So a change of only the percentage is written at most every `intervalMs` (latest wins), and any
 * other change (jobs started, finished, waiting) at once.
 */
export class WindowTitleWriter {
  readonly #throttle: LatestWins<string>;
  #offered: string | null = null;

  constructor(write: (title: string) => void, intervalMs = TITLE_PROGRESS_INTERVAL_MS, timers?: ThrottleTimers) {
    this.#throttle = new LatestWins(intervalMs, write, timers);
  }

  set(title: string): void {
    const previous = this.#offered;
    if (title === previous) return;
    this.#offered = title;
    // Counts changed: a percentage still held is stale, and this goes out now.
    if (previous === null || withoutPercent(previous) !== withoutPercent(title)) this.#throttle.clear();
    this.#throttle.offer('title', title);
  }

  /** Drops a held title (the window is going away). */
  dispose(): void {
    this.#throttle.clear();
  }
}

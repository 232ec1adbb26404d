// Fewer job.update events for the same picture. The tracker reports a job after every socket event
// (progress, progress_state, each preview frame), often several per sampler step, and most of them
// change nothing the renderer shows, or only its step counter. Every update the page receives costs
// it a re-render, so this gate, between the session and the event hub:
// - drops an update whose view equals the last one sent but for `updatedAt`;
// - sends at once any update that changes more than the running progress (phase, status, outputs,
//   error, reachability): those are never delayed or merged away;
// - holds progress-only changes so that a job sends at most one every `intervalMs`: the latest
//   held view goes out when the interval has passed (latest wins; nothing is queued).
// A job that ends sends its last view at once and leaves no state or timer behind.
import type { JobSnapshotView } from '@shared/ipc/contract';
import { isTerminalPhase } from '@main/jobs/types';

/** A job's step counter moves at most this often on screen (4 times a second). */
export const JOB_PROGRESS_INTERVAL_MS = 250;

export interface GateTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

const realTimers: GateTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  now: () => performance.now(),
};

interface Lane {
  /** What the renderer was last sent, to compare the next view with. */
  sent: JobSnapshotView;
  sentAt: number;
  held: JobSnapshotView | null;
  timer: unknown;
}

/** The fields a progress-only change may touch; any other difference is sent at once. */
const PROGRESS_FIELDS = new Set<keyof JobSnapshotView>(['updatedAt', 'currentNode', 'progress', 'overall', 'nodesDone', 'progressText']);

/** Compares two views field by field, ignoring updatedAt: 'same', 'progress' (only progress fields differ) or 'other'. */
export function compareViews(previous: JobSnapshotView, next: JobSnapshotView): 'same' | 'progress' | 'other' {
  let result: 'same' | 'progress' = 'same';
  for (const key of Object.keys(next) as (keyof JobSnapshotView)[]) {
    if (key === 'updatedAt') continue;
    if (sameValue(previous[key], next[key])) continue;
    if (!PROGRESS_FIELDS.has(key)) return 'other';
    result = 'progress';
  }
  // A field the previous view had and the next one lacks (origin is optional).
  for (const key of Object.keys(previous) as (keyof JobSnapshotView)[]) if (!(key in next)) return 'other';
  return result;
}

/** Structural equality of the JSON-like values a view holds. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export class JobUpdateGate {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly send: (view: JobSnapshotView) => void,
    private readonly intervalMs = JOB_PROGRESS_INTERVAL_MS,
    private readonly timers: GateTimers = realTimers,
  ) {}

  offer(view: JobSnapshotView): void {
    const lane = this.lanes.get(view.promptId);
    if (isTerminalPhase(view.phase)) {
      if (lane) this.clear(lane);
      this.lanes.delete(view.promptId);
      this.send(view);
      return;
    }
    if (!lane) {
      this.lanes.set(view.promptId, { sent: view, sentAt: this.timers.now(), held: null, timer: null });
      this.send(view);
      return;
    }
    const change = compareViews(lane.held ?? lane.sent, view);
    if (change === 'same') return;
    if (change === 'other') {
      this.clear(lane);
      this.dispatch(lane, view);
      return;
    }
    const wait = lane.sentAt + this.intervalMs - this.timers.now();
    if (wait <= 0 && lane.held === null) {
      this.dispatch(lane, view);
      return;
    }
    lane.held = view;
    lane.timer ??= this.timers.setTimeout(
      () => {
        lane.timer = null;
        const held = lane.held;
        lane.held = null;
        if (held && this.lanes.get(held.promptId) === lane) this.dispatch(lane, held);
      },
      Math.max(0, wait),
    );
  }

  /** Jobs with state kept (tests: nothing is left once they end). */
  size(): number {
    return this.lanes.size;
  }

  /** Drops every held view and timer (the session is going away). */
  dispose(): void {
    for (const lane of this.lanes.values()) this.clear(lane);
    this.lanes.clear();
  }

  private dispatch(lane: Lane, view: JobSnapshotView): void {
    lane.sent = view;
    lane.sentAt = this.timers.now();
    this.send(view);
  }

  private clear(lane: Lane): void {
    if (lane.timer !== null) this.timers.clearTimeout(lane.timer);
    lane.timer = null;
    lane.held = null;
  }
}

// Fewer job.update events for the same picture. The tracker reports a job after every socket event
// (progress, progress_state, each preview frame), often several per sampler step, and most of them
// change nothing the renderer shows, or only its step counter. Every update the page receives costs
// it a re-render, so this gate, between the session and the event hub:
// - drops an update whose view equals the last one sent but for `updatedAt`;
// - sends at once any update that changes more than the running progress (phase, status, outputs,
//   error, reachability; @shared/job-view-change says which): those are never delayed or merged away;
// - holds progress-only changes so that a job sends at most one every `intervalMs`: the latest
//   held view goes out when the interval has passed (the shared LatestWins; nothing is queued).
// A job that ends sends its last view at once and leaves no state or timer behind.
import type { JobSnapshotView } from '@shared/ipc/contract';
import { isTerminalPhase } from '@main/jobs/types';
import { compareViews } from '@shared/job-view-change';
import { LatestWins, type ThrottleTimers } from '@shared/latest-wins';

/** A job's step counter moves at most this often on screen (4 times a second). */
export const JOB_PROGRESS_INTERVAL_MS = 250;

/** The gate's clock: the throttle's timers (tests move them by hand). */
export type GateTimers = ThrottleTimers;

export class JobUpdateGate {
  /** The last view of each job let through to the throttle, to compare the next one with. */
  private readonly latest = new Map<string, JobSnapshotView>();
  /** Spaces out each job's views; a held progress view is replaced by a newer one (latest wins). */
  private readonly throttle: LatestWins<JobSnapshotView>;

  constructor(
    private readonly send: (view: JobSnapshotView) => void,
    intervalMs = JOB_PROGRESS_INTERVAL_MS,
    timers?: GateTimers,
  ) {
    this.throttle = new LatestWins(intervalMs, send, timers);
  }

  offer(view: JobSnapshotView): void {
    const id = view.promptId;
    const previous = this.latest.get(id);
    if (isTerminalPhase(view.phase)) {
      this.forget(id);
      this.send(view);
      return;
    }
    const change = previous ? compareViews(previous, view) : 'other';
    if (change === 'same') return;
    this.latest.set(id, view);
    // Anything but progress goes out now: a held progress view is dropped, not sent after it.
    if (change === 'other') this.throttle.clear((key) => key === id);
    this.throttle.offer(id, view);
  }

  /** Jobs with state kept (tests: nothing is left once they end). */
  size(): number {
    return this.latest.size;
  }

  /** Drops every held view and timer (the session is going away). */
  dispose(): void {
    this.throttle.clear();
    this.latest.clear();
  }

  private forget(id: string): void {
    this.throttle.clear((key) => key === id);
    this.latest.delete(id);
  }
}

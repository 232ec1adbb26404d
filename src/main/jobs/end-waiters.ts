// The callers waiting for jobs to end (waitForEnd): each wait is resolved with the job's final
// snapshot, rejected with JobTimeoutError when its own time limit passes, or rejected with
// TrackerDisposedError when the tracker shuts down. None of these cancels the job itself.
import { JobTimeoutError, TrackerDisposedError } from './tracker-errors';
import type { TrackerClock } from './tracker-clock';
import type { JobSnapshot } from './types';

interface Waiter {
  resolve(snapshot: JobSnapshot): void;
  reject(error: Error): void;
  timer: unknown;
}

export class EndWaiters {
  private readonly waiters = new Map<string, Set<Waiter>>();

  constructor(private readonly clock: TrackerClock) {}

  /** A wait for job `promptId` to end; null or undefined `timeoutMs`: no limit. */
  add(promptId: string, timeoutMs: number | null | undefined): Promise<JobSnapshot> {
    return new Promise<JobSnapshot>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, timer: null };
      if (timeoutMs !== null && timeoutMs !== undefined) {
        waiter.timer = this.clock.setTimeout(() => {
          this.waiters.get(promptId)?.delete(waiter);
          reject(new JobTimeoutError(promptId, timeoutMs));
        }, timeoutMs);
      }
      let set = this.waiters.get(promptId);
      if (!set) this.waiters.set(promptId, (set = new Set()));
      set.add(waiter);
    });
  }

  /** Whether anyone waits for job `promptId` (an ended job someone waits for is not forgotten yet). */
  has(promptId: string): boolean {
    return this.waiters.has(promptId);
  }

  /** Resolves every wait for job `promptId` with its final snapshot (taken only if someone waits). */
  resolve(promptId: string, snapshot: () => JobSnapshot): void {
    const set = this.waiters.get(promptId);
    this.waiters.delete(promptId);
    if (!set) return;
    const final = snapshot();
    for (const waiter of set) {
      if (waiter.timer !== null) this.clock.clearTimeout(waiter.timer);
      waiter.resolve(final);
    }
  }

  /** Rejects every wait, for every job, with TrackerDisposedError. */
  rejectAll(): void {
    for (const [promptId, set] of this.waiters) {
      for (const waiter of set) {
        if (waiter.timer !== null) this.clock.clearTimeout(waiter.timer);
        waiter.reject(new TrackerDisposedError(promptId));
      }
    }
    this.waiters.clear();
  }
}

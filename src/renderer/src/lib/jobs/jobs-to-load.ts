// Which journaled jobs the Jobs panel takes in at start-up: every job in flight, and the newest
// finished ones it keeps (`keep`), not cleared by "Clear finished". Taking in an older one would
// fetch its outputs only for the panel's trim to drop it at once: with a long journal that was
// hundreds of fetches at start-up, often to a server that is gone (issue 25).
import type { JobSnapshotView } from '@shared/ipc/contract';

export function isFinishedJob(job: JobSnapshotView): boolean {
  return job.phase === 'succeeded' || job.phase === 'failed' || job.phase === 'cancelled';
}

/** `jobs` as jobs.list answered them; `clearedBefore`: finished jobs that ended by then stay cleared. */
export function jobsToLoad(jobs: readonly JobSnapshotView[], clearedBefore: number, keep: number): JobSnapshotView[] {
  const shown = jobs.filter((job) => !(isFinishedJob(job) && (job.finishedAt ?? job.updatedAt) <= clearedBefore));
  const finished = shown.filter(isFinishedJob).sort((a, b) => b.submittedAt - a.submittedAt);
  const kept = new Set(finished.slice(0, keep).map((job) => job.promptId));
  return shown.filter((job) => !isFinishedJob(job) || kept.has(job.promptId));
}

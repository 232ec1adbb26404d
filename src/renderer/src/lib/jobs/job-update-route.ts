// Where a job.update from main goes: a change of only a running job's progress (the step counter,
// the overall share, the node it runs) is applied through the PaintSync, so while live previews are
// on screen it shows with the next preview frame instead of in a frame of its own; anything else
// (it started, finished, failed, has outputs) is applied at once, and a progress view still held
// for the job is dropped then (it is older than what was just applied).
import type { JobSnapshotView } from '@shared/ipc/contract';
import { compareViews } from '@shared/job-view-change';
import type { PaintSync } from '../stores/paint-sync';
import { isFinishedJob } from './jobs-to-load';

export function syncKeyOf(promptId: string): string {
  return `job:${promptId}`;
}

/** `shown`: the view on screen now (undefined for a new job); `apply` puts a view on screen. */
export function routeJobUpdate(sync: PaintSync, shown: JobSnapshotView | undefined, next: JobSnapshotView, apply: (view: JobSnapshotView) => void): void {
  const key = syncKeyOf(next.promptId);
  if (shown && !isFinishedJob(shown) && compareViews(shown, next) !== 'other') {
    sync.defer(key, () => apply(next));
    return;
  }
  sync.drop(key);
  apply(next);
}

// A job as the renderer sees it (JobSnapshotView), with plain defaults, for the renderer's tests.
import type { JobSnapshotView } from '@shared/ipc/contract';

export function jobView(promptId: string, phase: JobSnapshotView['phase'], extra: Partial<JobSnapshotView> = {}): JobSnapshotView {
  return {
    promptId,
    profileId: 'p',
    label: 'w.json',
    phase,
    status: phase,
    submittedAt: 0,
    updatedAt: 0,
    finishedAt: null,
    currentNode: null,
    progress: null,
    overall: null,
    nodesDone: 0,
    nodesTotal: null,
    progressText: null,
    outputs: [],
    error: null,
    ...extra,
  };
}

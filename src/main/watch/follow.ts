// The JobTracker as the hot folder's JobFollower: events when the socket carries them, polling
// when it does not (or for a job sent by an earlier process, whose events went to another socket).
import type { JobOrigin } from '../jobs/types';
import { describeJobFailure } from '../jobs/failure-text';
import type { TrackMeta, TrackedJob } from '../jobs/tracker';
import type { FollowOutcome, JobFollower } from './types';

export interface TrackerLike {
  track(promptId: string, meta?: TrackMeta): TrackedJob;
}

/**
 * `giveUpWhenUnreachable`: a follow rejects with ServerUnreachableError once the server has said
 * nothing about the job for the tracker's limit, so a pool can move the job elsewhere. A folder on
 * one server rides an outage out instead (the default).
 */
export function trackerFollower(tracker: TrackerLike, options: { giveUpWhenUnreachable?: boolean; origin?: JobOrigin } = {}): JobFollower {
  return {
    async follow(promptId, meta) {
      const snapshot = await tracker
        .track(promptId, { workflow: meta.workflow, workflowName: meta.workflowName, origin: options.origin ?? 'hot-folder' })
        .waitForEnd({ timeoutMs: null, ...(options.giveUpWhenUnreachable ? { giveUpWhenUnreachable: true } : {}) });
      const outcome: FollowOutcome = {
        phase: snapshot.phase,
        raw: snapshot.rawStatus,
        outputs: snapshot.outputs,
        errorText: snapshot.phase === 'succeeded' ? null : describeJobFailure(snapshot),
      };
      return outcome;
    },
  };
}

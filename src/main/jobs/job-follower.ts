// Following an accepted job to its end, for whoever sent it (a hot folder, a pool, a repeated
// run): the JobTracker as a JobFollower, events when the socket carries them, polling when it does
// not (or for a job sent by an earlier process, whose events went to another socket).
import type { JobPhase, OutputFile, Workflow } from '@main/service/types';
import { describeJobFailure } from './failure-text';
import type { TrackMeta, TrackedJob } from './tracker';
import type { JobOrigin } from './types';

/** How a followed job ended. */
export interface FollowOutcome {
  phase: JobPhase;
  /** The server's word or ours (`lost`, `never_submitted`). */
  raw: string;
  outputs: OutputFile[];
  /** Plain-language account of a failure or cancellation; null on success. */
  errorText: string | null;
}

/** Follows an accepted job to its end (the JobTracker, adapted by follow.ts). */
export interface JobFollower {
  follow(promptId: string, meta: { workflow: Workflow; workflowName: string | null }): Promise<FollowOutcome>;
}

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

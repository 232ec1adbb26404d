// The job tracker's public shapes: what it is built from, what a caller passes to track(), and
// what it hands back (a followed job's handle, a live preview). Re-exported by tracker.ts, which
// is where the rest of the app imports them from.
import type { EventStream, ServiceApi } from '@main/service/ports';
import type { ImageMime, OutputFile, Workflow } from '@main/service/types';
import type { JobStore } from './job-store';
import type { TrackerClock } from './tracker-clock';
import type { JobOrigin, JobSnapshot } from './types';

export interface JobTrackerDeps {
  api: ServiceApi;
  events: EventStream;
  /** When given, phases, outputs and errors are journaled, and reconcile() has something to read. */
  jobs?: JobStore;
  clock?: TrackerClock;
  /** How often to poll a job that needs it (socket not connected, or job quiet). Default 2000. */
  pollIntervalMs?: number;
  /** waitForEnd gives up after this long (the job itself goes on). null or absent: no limit. */
  timeoutMs?: number | null;
  /** A job the server says nothing about (socket down, polls failing) this long is "unknown — server unreachable"; default limits.ts (30 s). */
  unreachableAfterMs?: number;
  /** A job with no event for this long is polled even while the socket is connected. Default 5 poll intervals. */
  staleAfterMs?: number;
  /** Reads file references from an `executed` output (swappable for tests or other servers). */
  collectOutputs?: (node: string, output: unknown) => OutputFile[];
  /** How many ended jobs stay queryable through get(); older ones are forgotten. Default 200. */
  keepEnded?: number;
  /** Journaled with jobs this tracker records itself. */
  profileId?: string | null;
}

export interface TrackMeta {
  workflow?: Workflow | null;
  workflowName?: string | null;
  origin?: JobOrigin | null;
}

export interface TrackedJob {
  readonly promptId: string;
  snapshot(): JobSnapshot;
  waitForEnd(options?: WaitOptions): Promise<JobSnapshot>;
}

export interface PreviewUpdate {
  promptId: string;
  nodeId: string | null;
  mime: ImageMime;
  bytes: Uint8Array;
}

export interface WaitOptions {
  timeoutMs?: number | null;
  /** Reject with ServerUnreachableError once the job is unreachable (the CLI gives up; the app keeps waiting). */
  giveUpWhenUnreachable?: boolean;
}

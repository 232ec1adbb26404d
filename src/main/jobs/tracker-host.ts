// What the job tracker lends its collaborators (the event router, the poller, history reads): its
// server, its followed jobs, its journal and settings, and the reactions that stay the tracker's
// own (telling listeners, ending a job, acting on a verdict). Each collaborator takes only the
// part it needs (a Pick of this), so what it depends on shows in its own file.
import type { EventStream, JobHistory, ServiceApi } from '@main/service/ports';
import type { JobPhase, JobStatusReading, OutputFile } from '@main/service/types';
import type { JobJournal } from './job-journal';
import type { JobState } from './job-state';
import type { Verdict } from './server-verdict';
import type { TrackerClock } from './tracker-clock';
import type { JobErrorInfo } from './types';

export interface TrackerHost {
  readonly api: ServiceApi;
  readonly events: EventStream;
  readonly jobs: ReadonlyMap<string, JobState>;
  readonly clock: TrackerClock;
  readonly journal: JobJournal;
  readonly collect: (node: string, output: unknown) => OutputFile[];
  readonly pollIntervalMs: number;
  readonly staleAfterMs: number;
  isDisposed(): boolean;
  /** Tells the update listeners about the job as it is now. */
  emit(job: JobState): void;
  /** Tells the warning listeners (problems that did not stop tracking). */
  warn(message: string): void;
  /** Runs a listener or handler so that its failure never escapes into the socket's event loop. */
  guard(fn: () => void): void;
  /** After any change to the jobs: keeps polling and the socket's expectations in step. */
  afterChange(): void;
  /** Waits on the tracker's clock; shutting the tracker down ends the wait early. */
  sleep(ms: number): Promise<void>;
  finishByEvent(job: JobState, phase: JobPhase, raw: string, error: JobErrorInfo | null): Promise<void>;
  finishByStatus(job: JobState, reading: JobStatusReading, known: JobHistory | null): Promise<void>;
  applyVerdict(job: JobState, verdict: Verdict): Promise<void>;
  /** A try to reach the server about `job` failed (while the socket is down too). */
  noteUnreachable(job: JobState, reason: string): void;
  /** The server answered about `job`. */
  noteReachable(job: JobState): void;
}

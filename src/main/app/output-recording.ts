// Where a finished job's outputs go in the app: into the library, with the workflow, name and
// creation time from the job journal as provenance, unless its origin routes them elsewhere (a hot
// folder's jobs reach the library through the folder, with their input file). A removed hot
// folder's jobs are handed over to this route.
import { describeError } from '@shared/describe-error';
import type { JobRecord, JobStore } from '@main/jobs/job-store';
import { outputRouteOf } from '@main/jobs/output-route';
import type { JobSnapshot } from '@main/jobs/types';
import type { Library, LibraryServer, RecordContext } from '../library';
import type { ServerProfile } from '@main/service/types';
import type { LogLevel } from './ports';

export interface OutputRecordingDeps {
  jobs: () => JobStore | null;
  library: () => Library | null;
  log: (level: LogLevel, message: string) => void;
}

export class OutputRecording {
  private readonly deps: OutputRecordingDeps;

  constructor(deps: OutputRecordingDeps) {
    this.deps = deps;
  }

  /** Hands a finished job's outputs to the library (when its origin says so). */
  async record(snapshot: JobSnapshot, profileId: string, server: ServerProfile): Promise<void> {
    const library = this.deps.library();
    if (!library || snapshot.outputs.length === 0) return;
    try {
      const record = (await this.deps.jobs()?.get(snapshot.promptId)) ?? null;
      if (outputRouteOf(record) !== 'record') return;
      await library.record(snapshot, contextOf({ profileId, kind: server.kind, baseUrl: server.baseUrl }, record));
    } catch (error) {
      this.deps.log('warn', `Could not record the outputs of job ${snapshot.promptId} in the library: ${describeError(error)}`);
    }
  }

  /**
   * A removed hot folder's jobs whose outputs it did not take: the library takes them from now on,
   * and records at once those that had already succeeded (no end is coming to route them).
   */
  async handOver(promptIds: readonly string[]): Promise<void> {
    const succeeded = (await this.deps.jobs()?.handOverToLibrary(promptIds)) ?? [];
    for (const record of succeeded) {
      await this.deps.library()?.record(record, contextOf({ profileId: record.profileId, kind: record.serverKind, baseUrl: record.baseUrl }, record));
    }
  }
}

/** Where a job's outputs came from, for the library: its server, and its workflow, name and creation time when journaled. */
function contextOf(server: LibraryServer, record: JobRecord | null): RecordContext {
  return {
    server,
    ...(record?.workflow ? { workflow: record.workflow } : {}),
    ...(record?.workflowName ? { workflowName: record.workflowName } : {}),
    ...(record ? { createdAt: record.createdAt } : {}),
  };
}

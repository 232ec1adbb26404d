// What a folder runner is given (its journal, the job journal, the pool, where outputs go, the
// clock) and how it runs; shared by the runner and the collaborators it hands parts of them to.
import type { JobStore } from '@main/jobs/job-store';
import type { PoolMember, ServerPool } from '@main/pool/server-pool';
import type { Workflow } from '@main/service/types';
import type { InputRef } from '@main/workflow/edit';
import type { WatchJournal } from './journal';
import type { HotFolderEvent, OutputSink } from './types';

export interface RunnerDeps {
  journal: WatchJournal;
  /** The job journal (origin 'hot-folder'); null in tests that run a folder without one. */
  jobs: JobStore | null;
  profileId: string | null;
  /** The servers files go to: one (today's single server) or several acting as one queue. */
  pool: ServerPool;
  sink: OutputSink | null;
  emit(event: HotFolderEvent): void;
  now(): number;
  newPromptId?: () => string;
  random?: () => number;
  /**
   * Makes a file's workflow ready for the pool server it goes to: the workflow's fixed inputs
   * (a shared mask the app uploaded to the active server) put on that server too; `skip` is the
   * input the file itself was uploaded for. Absent: the workflow goes as it is.
   */
  prepareWorkflow?: (member: PoolMember, workflow: Workflow, skip: InputRef) => Promise<void>;
}

export interface RunnerOptions {
  /** Watch for new files (false: the start-up scan only, as `flowdeck watch --once`). */
  watch: boolean;
  /** Start paused (nothing is sent until resume()). */
  paused?: boolean;
  /**
   * The folder's pool cannot be used, in words for the user: the folder finds and lists its files
   * but sends and collects nothing (paused, servers_down, with this reason) rather than run them
   * elsewhere. It runs once it is started again with a usable pool (or on another server).
   */
  poolUnusable?: string;
}

/** Why waiting for the folder ended. */
export type IdleReason = 'drained' | 'paused';

// What a send is made of: where it goes and is journaled (SubmitTarget), what is sent and why
// (JobIntent), and what the server answered (Submitted). Shared by the v1 and v2 submit paths and
// their journal helpers, so none of them imports another's module for its types.
import type { JsonObject } from '@shared/json';
import type { ServiceApi } from '@main/service/ports';
import type { Workflow } from '@main/service/types';
import type { JobStore } from './job-store';
import type { JobOrigin } from './types';

/** Where a job goes and where it is journaled. */
export interface SubmitTarget {
  api: ServiceApi;
  /** The job journal; null when it cannot be opened (the job still runs, without crash safety). */
  jobs: JobStore | null;
  /** The events socket's client id (a local server sends a job's events only to it). */
  clientId: string;
  /** The settings profile of the server, recorded with the job. */
  profileId?: string | null;
}

export interface JobIntent {
  workflow: Workflow;
  workflowName: string | null;
  origin: JobOrigin;
  /**
   * The editor graph the workflow came from (a UI file, an image's `workflow` chunk). Sent as
   * extra_data.extra_pnginfo.workflow to servers that write it into their outputs (so they open
   * again in the server's own editor, as when the editor queues); others are not sent it.
   */
  editorGraph?: JsonObject | null | undefined;
  /**
   * A prompt_id chosen for this job before (a hot folder's send that the server never received):
   * sending it again under the same id cannot run it twice. Used where the client picks ids.
   */
  promptId?: string | null;
  newPromptId?: (() => string) | undefined;
  /**
   * Told the chosen prompt_id (null where the server assigns it) once the intent is journaled and
   * before the submit: a caller with a journal of its own (a hot folder's) records it there too.
   */
  recordIntent?: ((promptId: string | null) => Promise<void>) | undefined;
}

export interface Submitted {
  promptId: string;
  number: number | null;
}

// The one way a job is sent, for the app's Run view, `flowdeck run` and hot folders: the intent is
// journaled before the submit (where the client picks the prompt_id), the workflow is sent once,
// and the accepted job is journaled with its origin, which later decides where its outputs go
// (never an in-memory registry: the record survives a crash and a restart of whoever reads it).
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../shared/json';
import type { ServiceApi } from '../service/ports';
import type { Workflow } from '../service/types';
import { WorkflowRejectedError } from '../service/errors';
import type { JobStore } from './job-store';
import { askServer } from './server-verdict';
import type { JobOrigin } from './types';
import { submitJobV2 } from './submit-v2';
import { journalFields, recordAccepted } from './submit-journal';

export { recordAccepted };

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

/** Journals the intent, submits once, journals the accepted job. Throws what the server said on a refusal. */
export async function submitJob(target: SubmitTarget, intent: JobIntent): Promise<Submitted> {
  // Comfy API v2: the intent is journaled under its Idempotency-Key instead (submit-v2.ts).
  if (target.api.capabilities.contract === 'v2') return submitJobV2(target, intent);
  const { api, jobs } = target;
  // Where the client picks the prompt_id it is journaled first, so a crash between sending and
  // reading the answer can be reconciled; otherwise the server assigns its own.
  const chosen = api.capabilities.clientPromptId ? (intent.promptId ?? (intent.newPromptId ?? randomUUID)()) : null;
  const base = journalFields(target, intent);
  // The caller's own journal first: a crash before the job journal's entry leaves an id there that
  // is sent again as the same id, never a job-journal entry that nobody settles.
  await intent.recordIntent?.(chosen);
  if (chosen) await jobs?.recordSubmitting({ ...base, promptId: chosen });
  let result: Submitted;
  try {
    const extraData = intent.editorGraph && api.capabilities.embedsEditorGraph ? { extra_pnginfo: { workflow: intent.editorGraph } } : null;
    result = await api.submit(intent.workflow, { clientId: target.clientId, ...(chosen ? { promptId: chosen } : {}), ...(extraData ? { extraData } : {}) });
  } catch (error) {
    // "prompt_id already exists": an earlier send of this very id got through after all.
    const resent = chosen !== null && error instanceof WorkflowRejectedError && error.errorType === 'invalid_prompt_id' && (await serverHas(api, chosen));
    if (!resent) {
      if (chosen) await jobs?.remove(chosen);
      throw error;
    }
    result = { promptId: chosen, number: null };
  }
  await recordAccepted(target, intent, result);
  return { promptId: result.promptId, number: result.number };
}

async function serverHas(api: ServiceApi, promptId: string): Promise<boolean> {
  const verdict = await askServer(api, promptId);
  return verdict.kind === 'ended' || verdict.kind === 'in_flight';
}

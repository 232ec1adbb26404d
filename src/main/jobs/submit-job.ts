// The one way a job is sent, for the app's Run view, `flowdeck run` and hot folders: the intent is
// journaled before the submit (where the client picks the prompt_id), the workflow is sent once,
// and the accepted job is journaled with its origin, which later decides where its outputs go
// (never an in-memory registry: the record survives a crash and a restart of whoever reads it).
//
// "Did my send get through?" is decided here and nowhere else: the service client sends once; a
// send whose answer was lost is followed by a question to the server (server-verdict.ts) and sent
// again under the same id only when the server does not have it; a resend refused because the id
// exists is accepted when the server has the job.
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../shared/json';
import { backoffDelay, DEFAULT_RETRY_POLICY } from '../service/backoff';
import type { ServiceApi, SubmitOptions } from '../service/ports';
import type { Workflow } from '../service/types';
import { ServiceError, WorkflowRejectedError } from '../service/errors';
import { isDuplicatePromptId } from '../service/responses';
import type { JobStore } from './job-store';
import { askServer } from './server-verdict';
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

/** Journals the intent, submits once, journals the accepted job. Throws what the server said on a refusal. */
export async function submitJob(target: SubmitTarget, intent: JobIntent): Promise<Submitted> {
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
    const options: SubmitOptions = { clientId: target.clientId, ...(extraData ? { extraData } : {}) };
    result = chosen ? await sendUntilAnswered(api, intent.workflow, options, chosen) : await api.submit(intent.workflow, options);
  } catch (error) {
    if (chosen) await jobs?.remove(chosen);
    throw error;
  }
  await recordAccepted(target, intent, result);
  return { promptId: result.promptId, number: result.number };
}

/**
 * Journals that the server has the job (after its submit answered, or a verdict found it there).
 * `sentEarlier`: the send was an earlier process's, so the record keeps that process's client id
 * (a local server sends the job's events to it, not to us).
 */
export async function recordAccepted(target: SubmitTarget, intent: JobIntent, job: Submitted, sentEarlier = false): Promise<void> {
  const fields = journalFields(target, intent);
  await target.jobs?.recordSubmitted({ ...fields, ...(sentEarlier ? { clientId: null } : {}), promptId: job.promptId, number: job.number });
}

function journalFields(target: SubmitTarget, intent: JobIntent) {
  return {
    ...(target.profileId !== undefined ? { profileId: target.profileId } : {}),
    serverKind: target.api.profile.kind,
    baseUrl: target.api.profile.baseUrl,
    clientId: target.clientId,
    workflow: intent.workflow,
    workflowName: intent.workflowName,
    origin: intent.origin,
  };
}

/**
 * Sends under a client-chosen id until the server has answered: a send that got no answer (a
 * retryable network failure) waits, asks whether the server has the job, and is sent again only
 * when it does not; "prompt_id already exists" means an earlier send of this very id got through,
 * once the server confirms it has the job.
 */
async function sendUntilAnswered(api: ServiceApi, workflow: Workflow, options: SubmitOptions, promptId: string): Promise<Submitted> {
  const policy = api.retryPolicy ?? DEFAULT_RETRY_POLICY;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await api.submit(workflow, { ...options, promptId });
    } catch (error) {
      // Our own id "already exists": after a send of ours in this loop, that send got through;
      // for an id sent by an earlier process, the server confirms that it has the job.
      if (error instanceof WorkflowRejectedError && isDuplicatePromptId(error) && (attempt > 0 || (await serverHas(api, promptId)))) return { promptId, number: null };
      // A server silent for the whole deadline (NoAnswerError) is not retryable: see http.ts.
      const lost = error instanceof ServiceError && error.kind === 'network' && error.retryable;
      if (!lost || attempt >= policy.retries) throw error;
      await policy.sleep(backoffDelay(attempt, policy), options.signal);
      if (await serverHas(api, promptId)) return { promptId, number: null };
    }
  }
}

async function serverHas(api: ServiceApi, promptId: string): Promise<boolean> {
  const verdict = await askServer(api, promptId);
  return verdict.kind === 'ended' || verdict.kind === 'in_flight';
}

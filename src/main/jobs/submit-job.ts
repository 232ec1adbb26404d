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
import { backoffDelay, DEFAULT_RETRY_POLICY } from '@main/service/backoff';
import type { ServiceApi, SubmitOptions } from '@main/service/ports';
import type { Workflow } from '@main/service/types';
import { ServiceError, WorkflowRejectedError } from '@main/service/errors';
import { isDuplicatePromptId } from '@main/service/responses';
import { askServer } from './server-verdict';
import type { JobIntent, SubmitTarget, Submitted } from './submit-types';
import { submitJobV2 } from './submit-v2';
import { journalFields, recordAccepted } from './submit-journal';

export { recordAccepted };

export type { JobIntent, SubmitTarget, Submitted } from './submit-types';

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
  const sendAndJournal = async (): Promise<Submitted> => {
    if (chosen) await jobs?.recordSubmitting({ ...base, promptId: chosen });
    return sendJournaled(target, intent, chosen);
  };
  return chosen && jobs ? jobs.whileSending(chosen, sendAndJournal) : sendAndJournal();
}

/** Sends the workflow once (under `chosen` where the client picks the id) and journals the outcome. */
async function sendJournaled(target: SubmitTarget, intent: JobIntent, chosen: string | null): Promise<Submitted> {
  const { api, jobs } = target;
  let result: Submitted;
  try {
    const extraData = intent.editorGraph && api.capabilities.embedsEditorGraph ? { extra_pnginfo: { workflow: intent.editorGraph } } : null;
    const options: SubmitOptions = { clientId: target.clientId, ...(extraData ? { extraData } : {}) };
    result = chosen ? await sendUntilAnswered(api, intent.workflow, options, chosen) : await api.submit(intent.workflow, options);
  } catch (error) {
    if (chosen) await jobs?.remove(chosen);
    throw error;
  }
  // The intent's row moves on in one UPDATE, without serialising the workflow again; the whole
  // record is written only when that row is gone (settled meanwhile) or there was none.
  const moved = chosen !== null && result.promptId === chosen && jobs ? await jobs.acceptSubmitting(chosen, chosen, result.number) : false;
  if (!moved) await recordAccepted(target, intent, result);
  return { promptId: result.promptId, number: result.number };
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
      if (error instanceof WorkflowRejectedError && isDuplicatePromptId(error) && (attempt > 0 || (await serverHas(api, promptId))))
        return { promptId, number: null };
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

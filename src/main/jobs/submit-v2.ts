// The single pipeline's submit on a Comfy API v2 server, where the server names the job and the
// client names the send: an Idempotency-Key, journaled with the intent (phase `submitting`, under
// the key) before the send, so that a crash between send and answer leaves the key behind. The
// policy (docs/v2-submit-policy.md):
// - answered: the journal row takes the job's id and goes on as any accepted job;
// - refused (the server answered: invalid workflow, credits, ...): no job exists, the row goes;
// - no answer (network, 5xx, a silent deadline): sent again under the same key, up to three sends
//   in all (this is the one retry layer; the service sends each POST once); still none: the row
//   stays `submitting`; the next process to open
//   the journal on this server sends it again under the same key (resendUnanswered), which either
//   makes the job now (the first send never arrived) or is refused as a reuse, then the job is
//   looked for by its key and, when it cannot be found, the row ends saying plainly that a run
//   may exist and what to check. A key is never sent as a new job under another key.
import { randomUUID } from 'node:crypto';
import { backoffDelay, DEFAULT_RETRY_POLICY } from '@main/service/backoff';
import { ServiceError } from '@main/service/errors';
import type { ServiceApi, SubmitOptions } from '@main/service/ports';
import type { SubmitResult, Workflow } from '@main/service/types';
import { SendMayHaveRunError } from '@main/service/v2/submit';
import type { JobStore, JobRecord } from './job-store';
import type { JobIntent, SubmitTarget, Submitted } from './submit-types';
import { journalFields, recordAccepted } from './submit-journal';
import type { JobErrorInfo } from './types';
import { sameBaseUrl } from '@main/config/settings';

/** Sends of one intent whose answer never came, each under the same key, before giving up. */
export const MAX_UNANSWERED_SENDS = 3;

/**
 * A send whose answer never came: the connection failed, the server was silent for the whole
 * deadline (NoAnswerError), or it answered 5xx. It may or may not have made a job.
 */
function unanswered(error: unknown): boolean {
  if (!(error instanceof ServiceError) || error instanceof SendMayHaveRunError) return false;
  return error.kind === 'network' || (error.status !== null && error.status >= 500);
}

/** Whether the server answered (so its refusal is definite): a ServiceError with an HTTP status below 500. */
function wasAnswered(error: unknown): boolean {
  return error instanceof ServiceError && error.status !== null && !unanswered(error) && !(error instanceof SendMayHaveRunError);
}

/**
 * The one retry layer of a v2 submit: sends under `options.idempotencyKey` until the server
 * answers, at most MAX_UNANSWERED_SENDS times, pausing as every retry does (backoff.ts). Safe:
 * the key makes a send that arrives twice a refusal, never a second job (the client then finds
 * the job by its key, or says that a run may exist).
 */
async function sendUnderKey(api: ServiceApi, workflow: Workflow, options: SubmitOptions): Promise<SubmitResult> {
  const policy = api.retryPolicy ?? DEFAULT_RETRY_POLICY;
  for (let sent = 1; ; sent += 1) {
    try {
      return await api.submit(workflow, options);
    } catch (error) {
      if (!unanswered(error) || sent >= MAX_UNANSWERED_SENDS) throw error;
      await policy.sleep(backoffDelay(sent - 1, policy), options.signal);
    }
  }
}

function mayExistError(error: SendMayHaveRunError): JobErrorInfo {
  return {
    exceptionType: 'idempotency_key_reuse',
    explanation:
      "The send's answer never arrived, and the server will not run the same send twice. A job may have been created: check the server's job list before running the workflow again.",
    message: error.message,
    nodeId: null,
    nodeType: null,
    traceback: [],
  };
}

async function settleFailedSend(jobs: JobStore | null, key: string, error: unknown): Promise<void> {
  if (!jobs) return;
  if (error instanceof SendMayHaveRunError) {
    await jobs.updatePhase(key, 'failed', 'may_exist');
    await jobs.setError(key, mayExistError(error));
  } else if (wasAnswered(error)) {
    await jobs.remove(key);
  }
  // No answer at all: the row stays `submitting` for resendUnanswered.
}

/** Journals the intent under a fresh Idempotency-Key, sends it, and journals the job the server made. */
export async function submitJobV2(target: SubmitTarget, intent: JobIntent): Promise<Submitted> {
  const { api, jobs } = target;
  const key = intent.promptId ?? (intent.newPromptId ?? randomUUID)();
  await intent.recordIntent?.(key);
  const sendAndJournal = async (): Promise<Submitted> => {
    await jobs?.recordSubmitting({ ...journalFields(target, intent), promptId: key });
    let result: Submitted;
    try {
      result = await sendUnderKey(api, intent.workflow, { clientId: target.clientId, idempotencyKey: key });
    } catch (error) {
      await settleFailedSend(jobs, key, error);
      throw error;
    }
    // The row journaled above takes the job's id and moves on in one write; recorded afresh only
    // when it is gone (settled meanwhile).
    if (!(await jobs?.acceptSubmitting(key, result.promptId, result.number))) await recordAccepted(target, intent, result);
    return result;
  };
  return jobs ? jobs.whileSending(key, sendAndJournal) : sendAndJournal();
}

export type ResendOutcome = { key: string; kind: 'accepted'; jobId: string } | { key: string; kind: 'may_exist' | 'refused' | 'unanswered'; message: string };

/**
 * Sends again, under the same Idempotency-Key, every send of this server the journal holds as
 * `submitting` (a process that died between send and answer). Run before reconciliation.
 */
export async function resendUnanswered(target: SubmitTarget): Promise<ResendOutcome[]> {
  const { api, jobs } = target;
  if (!jobs || api.capabilities.contract !== 'v2') return [];
  const inFlight = await jobs.listInFlight();
  // A hot folder sends its own unconfirmed sends again under the same key (as the tracker leaves
  // them to it): only those it still holds, read after the rows (see tracker.ts reconcile).
  const held = inFlight.some((r) => r.origin === 'hot-folder' && r.phase === 'submitting') ? await jobs.heldElsewhere() : new Set<string>();
  const rows = inFlight.filter(
    (r) =>
      r.phase === 'submitting' &&
      r.serverKind === api.profile.kind &&
      sameBaseUrl(r.baseUrl, api.profile.baseUrl) &&
      !(r.origin === 'hot-folder' && held.has(r.promptId)) &&
      // A send of this process still under way answers for itself.
      !jobs.isBeingSent(r.promptId),
  );
  const outcomes: ResendOutcome[] = [];
  for (const row of rows) outcomes.push(await resendOne(target, jobs, row));
  return outcomes;
}

async function resendOne(target: SubmitTarget, jobs: JobStore, row: JobRecord): Promise<ResendOutcome> {
  const key = row.promptId;
  if (!row.workflow) {
    const error = new SendMayHaveRunError(key, new URL(row.baseUrl).origin);
    await settleFailedSend(jobs, key, error);
    return { key, kind: 'may_exist', message: error.message };
  }
  try {
    const result = await sendUnderKey(target.api, row.workflow, { clientId: target.clientId, idempotencyKey: key });
    await jobs.renameSubmitting(key, result.promptId);
    await recordAccepted(target, { workflow: row.workflow, workflowName: row.workflowName, origin: row.origin ?? 'other' }, result, true);
    return { key, kind: 'accepted', jobId: result.promptId };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof SendMayHaveRunError) {
      await settleFailedSend(jobs, key, error);
      return { key, kind: 'may_exist', message };
    }
    if (wasAnswered(error)) {
      // Refused outright now: no job came of it; the intent ends as failed, with the reason.
      await jobs.updatePhase(key, 'failed', 'refused');
      await jobs.setError(key, {
        exceptionType: null,
        explanation: 'The server refused the workflow when it was sent again.',
        message,
        nodeId: null,
        nodeType: null,
        traceback: [],
      });
      return { key, kind: 'refused', message };
    }
    return { key, kind: 'unanswered', message };
  }
}

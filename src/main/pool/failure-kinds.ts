// Which failures say "this server stopped answering" (the pool takes it out of rotation and moves
// its work) and which say "this server will not take this file" (another server may), as opposed
// to failures of the job itself, which no other server would fix.
import { ServiceError, WorkflowRejectedError } from '@main/service/errors';
import { ServerUnreachableError } from '@main/jobs/tracker-errors';

export function isUnreachable(error: unknown): boolean {
  if (error instanceof ServerUnreachableError) return true;
  return error instanceof ServiceError && error.kind === 'network';
}

/**
 * Refused by the client before a byte was sent (the upload is over this server's limits: no HTTP
 * status, not retryable). A refusal the server itself sent has a status and is the job's own failure.
 */
export function refusedBeforeSending(error: unknown): boolean {
  return (
    error instanceof ServiceError && !(error instanceof WorkflowRejectedError) && error.kind === 'invalid_workflow' && error.status === null && !error.retryable
  );
}

/** The tracker's words for a job its server has no record of (jobs/tracker.ts): a restart forgot it, so it can run elsewhere. */
export function isForgottenJob(raw: string): boolean {
  return raw === 'lost' || raw === 'never_submitted';
}

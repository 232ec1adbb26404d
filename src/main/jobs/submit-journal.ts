// The journal writes of a submit shared by both contracts' pipelines (submit-job.ts for v1,
// submit-v2.ts for Comfy API v2): the fields every record carries, and the record of an accepted job.
import type { JobIntent, SubmitTarget, Submitted } from './submit-types';

/**
 * Journals that the server has the job (after its submit answered, or a verdict found it there).
 * `sentEarlier`: the send was an earlier process's, so the record keeps that process's client id
 * (a local server sends the job's events to it, not to us).
 */
export async function recordAccepted(target: SubmitTarget, intent: JobIntent, job: Submitted, sentEarlier = false): Promise<void> {
  const fields = journalFields(target, intent);
  await target.jobs?.recordSubmitted({ ...fields, ...(sentEarlier ? { clientId: null } : {}), promptId: job.promptId, number: job.number });
}

export function journalFields(target: SubmitTarget, intent: JobIntent) {
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

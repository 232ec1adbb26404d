// The one way a job is sent, for the app's Run view, `flowdeck run` and hot folders: the intent is
// journaled before the submit (where the client picks the prompt_id), the workflow is sent once,
// and the accepted job is journaled with its origin, which later decides where its outputs go
// (never an in-memory registry: the record survives a crash and a restart of whoever reads it).
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../shared/json';
import type { ServiceApi } from '../service/ports';
import type { Workflow } from '../service/types';
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
  /** Sent as the request's extra_data (e.g. the editor graph as extra_pnginfo). */
  extraData?: JsonObject | undefined;
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
  const chosen = api.capabilities.clientPromptId ? randomUUID() : undefined;
  const base = {
    ...(target.profileId !== undefined ? { profileId: target.profileId } : {}),
    serverKind: api.profile.kind,
    baseUrl: api.profile.baseUrl,
    clientId: target.clientId,
    workflow: intent.workflow,
    workflowName: intent.workflowName,
    origin: intent.origin,
  };
  if (chosen) await jobs?.recordSubmitting({ ...base, promptId: chosen });
  let result;
  try {
    result = await api.submit(intent.workflow, { clientId: target.clientId, ...(chosen ? { promptId: chosen } : {}), ...(intent.extraData ? { extraData: intent.extraData } : {}) });
  } catch (error) {
    if (chosen) await jobs?.remove(chosen);
    throw error;
  }
  await jobs?.recordSubmitted({ ...base, promptId: result.promptId, number: result.number });
  return { promptId: result.promptId, number: result.number };
}

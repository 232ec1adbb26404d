// The queue, cancelling, interrupting and the cloud's job status.
// Local: delete removes pending jobs only; interrupt with {prompt_id} stops that job only when it
// is the one running, with no body whatever runs. Cloud (as documented): a caller sees and cancels
// only its own jobs; delete cancels pending jobs only and answers {deleted, cleared}; interrupt
// stops ALL of the caller's running jobs, whatever its body says.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonObject, type JsonValue } from '@shared/json';
import { ownerScope, type DemoCore, type RequestInfo } from './core';
import { parseJsonBody, readBody, sendCloudError, sendEmpty, sendJson, sendServerError } from './http-util';
import { pyTruthy } from './py-format';
import type { Job } from './queue';
import type { DemoStatusVocabulary } from './types';

const MAX_BODY = 1024 * 1024;

function localEntry(job: Job): unknown[] {
  return [job.number, job.promptId, job.prompt, job.extraData, job.outputs];
}

/** Cloud entries carry no extra_data at all, so no key can leak through them. */
function cloudEntry(job: Job): unknown[] {
  return [job.number, job.promptId, job.prompt, job.outputs, { create_time: job.createdAt }];
}

export function getQueue(_req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): void {
  const owner = ownerScope(core, info);
  const entry = core.flavour === 'cloud' ? cloudEntry : localEntry;
  sendJson(res, core.flavour, 200, {
    queue_running: core.queue.runningJobs(owner).map(entry),
    queue_pending: core.queue.pendingJobs(owner).map(entry),
  });
}

/** Reads a JSON body; answers the malformed case itself and returns undefined then. */
async function jsonBody(req: IncomingMessage, res: ServerResponse, core: DemoCore, allowEmpty: boolean): Promise<JsonValue | undefined> {
  const body = await readBody(req, MAX_BODY);
  if (allowEmpty && body.length === 0) return {};
  const parsed = parseJsonBody(body);
  if (parsed.ok) return parsed.value;
  if (allowEmpty) return {};
  if (core.flavour === 'local') sendServerError(res, 'local');
  else sendCloudError(res, 400, 'invalid_request', 'The request body is not valid JSON.');
  return undefined;
}

export async function postQueue(req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): Promise<void> {
  const json = await jsonBody(req, res, core, false);
  if (json === undefined) return;
  if (!isJsonObject(json)) {
    if (core.flavour === 'local') sendServerError(res, 'local');
    else sendCloudError(res, 400, 'invalid_request', 'Expected {"delete": [ids]} or {"clear": true}.');
    return;
  }
  const owner = ownerScope(core, info);
  let cleared = false;
  const deleted: string[] = [];
  if (pyTruthy(json.clear)) {
    cleared = core.queue.clearPending(owner).length > 0;
    core.hub.sendStatus();
  }
  if (json.delete !== undefined) {
    if (!Array.isArray(json.delete)) {
      if (core.flavour === 'local') sendServerError(res, 'local');
      else sendCloudError(res, 400, 'invalid_request', '"delete" must be an array of prompt ids.');
      return;
    }
    const ids = json.delete.filter((id): id is string => typeof id === 'string');
    for (const id of ids) {
      if (core.queue.removePending([id], owner).length === 0) continue;
      deleted.push(id);
      core.hub.sendStatus();
    }
  }
  if (core.flavour === 'cloud') sendJson(res, 'cloud', 200, { deleted, cleared });
  else sendEmpty(res, 200);
}

export async function postInterrupt(req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): Promise<void> {
  const json = await jsonBody(req, res, core, true);
  if (core.flavour === 'cloud') {
    core.worker.interruptAll(info.key);
  } else {
    const promptId = isJsonObject(json) ? json.prompt_id : undefined;
    if (typeof promptId === 'string' && promptId !== '') core.worker.interrupt(promptId);
    else core.worker.interrupt();
  }
  sendEmpty(res, 200);
}

/**
 * The word /api/job/{id}/status answers with. 'spec': the specification's plain words;
 * 'success_error': success/error for finished jobs; 'raw': the documented cloud's raw internal
 * states (queued_waiting, executing, success, error, cancelled).
 */
function statusWord(job: Job, vocabulary: DemoStatusVocabulary): string {
  switch (job.state) {
    case 'pending':
      return vocabulary === 'raw' ? 'queued_waiting' : 'pending';
    case 'running':
      return vocabulary === 'raw' ? 'executing' : 'in_progress';
    case 'success':
      return vocabulary === 'spec' ? 'completed' : 'success';
    case 'error':
      return vocabulary === 'spec' ? 'failed' : 'error';
    case 'cancelled':
      return 'cancelled';
  }
}

export function getJobStatus(_req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): void {
  const id = info.params.id ?? '';
  const job = core.queue.get(id);
  if (!job || job.owner !== info.key) {
    sendCloudError(res, 404, 'not_found', 'No job with this id.');
    return;
  }
  const body: Record<string, unknown> = {
    status: statusWord(job, core.statusVocabulary),
    id: job.promptId,
    created_at: new Date(job.createdAt).toISOString(),
    updated_at: new Date(job.updatedAt).toISOString(),
  };
  if (job.state === 'error') body.error_message = job.errorMessage ?? 'The job failed.';
  sendJson(res, core.flavour, 200, body);
}

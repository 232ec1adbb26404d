// /api/v2/jobs: submit (Idempotency-Key single use, never replayed; released only when the
// submission definitely failed without a job), the job resource (the truth), the list (v2-only
// deployments; the cloud answers 501 as it does today), the workflow behind a job, and per-job
// cancel. Asset references in the workflow become the stored input file names before validation.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonObject, type JsonObject, type JsonValue } from '@shared/json';
import { BodyTooLargeError, parseJsonBody, readBody } from '../http-util';
import { enqueueJob } from '../routes-prompt';
import { validatePrompt } from '../validate';
import { sendV2Error, sendV2Json } from './envelope';
import { isTerminalV2 } from './jobs-state';
import type { V2Surface } from './surface';

const MAX_SUBMIT_BODY = 64 * 1024 * 1024;
const MAX_KEY_LENGTH = 255;
const MAX_METADATA = 1024;

/** Replaces each core/ASSET reference by the stored file name; the ids it could not resolve. */
function resolveAssetRefs(workflow: JsonObject, v2: V2Surface, owner: string | null): string[] {
  const missing: string[] = [];
  for (const node of Object.values(workflow)) {
    if (!isJsonObject(node) || !isJsonObject(node.inputs)) continue;
    const inputs = node.inputs;
    for (const [name, value] of Object.entries(inputs)) {
      if (!isJsonObject(value) || value.__type !== 'core/ASSET') continue;
      const info = isJsonObject(value.info) ? value.info : null;
      const id = typeof info?.id === 'string' ? info.id : null;
      const record = id !== null ? v2.assets.get(id, owner) : undefined;
      if (!record || record.area !== 'input') {
        missing.push(id ?? '(no id)');
        continue;
      }
      inputs[name] = record.filename;
    }
  }
  return missing;
}

function isUiFormat(workflow: JsonObject): boolean {
  return Array.isArray(workflow.nodes) && Array.isArray(workflow.links);
}

export async function postJob(req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null): Promise<void> {
  v2.stats.submitRequests += 1;
  if (v2.faults.takeDropBefore()) {
    req.socket.destroy();
    return;
  }
  let raw: Buffer;
  try {
    raw = await readBody(req, MAX_SUBMIT_BODY);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return sendV2Error(res, 413, 'payload_too_large', 'The request body is too large.');
    throw error;
  }
  const headerKey = req.headers['idempotency-key'];
  const key = Array.isArray(headerKey) ? headerKey[0] : headerKey;
  if (key !== undefined && (key === '' || key.length > MAX_KEY_LENGTH))
    return sendV2Error(res, 400, 'invalid_request', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters.`);
  const parsed = parseJsonBody(raw);
  if (!parsed.ok || !isJsonObject(parsed.value)) return sendV2Error(res, 400, 'invalid_request', 'The request body must be a JSON object.');
  const body = parsed.value;
  if (key !== undefined && v2.isClaimed(owner, key)) {
    return sendV2Error(
      res,
      422,
      'idempotency_key_reuse',
      'This Idempotency-Key was used before; a request with it is never run again. Find the job it created instead.',
    );
  }
  // Claimed now, so a concurrent duplicate is refused too; released when no job came of it.
  if (key !== undefined) v2.claim(owner, key);
  let created = false;
  try {
    created = await submitClaimed(req, res, v2, owner, body, key);
  } finally {
    if (key !== undefined && !created) v2.release(owner, key);
  }
}

/** The rest of a submit, once its key is claimed; whether a job was created. */
async function submitClaimed(
  req: IncomingMessage,
  res: ServerResponse,
  v2: V2Surface,
  owner: string | null,
  body: JsonObject,
  key: string | undefined,
): Promise<boolean> {
  const core = v2.core;
  const fault = v2.faults.takeSubmitFault();
  const refuse = (status: number, code: string, message: string, details: Record<string, unknown> | null = null, retryAfter?: number): false => {
    sendV2Error(res, status, code, message, details, retryAfter);
    return false;
  };
  if (body.webhook_url !== undefined || body.inputs !== undefined)
    return refuse(422, 'invalid_workflow', '"webhook_url" and "inputs" are reserved and not accepted yet.');
  if (!isJsonObject(body.workflow)) return refuse(422, 'invalid_workflow', "Missing 'workflow': send the API-format graph as an object.");
  const workflow = body.workflow;
  if (isUiFormat(workflow))
    return refuse(422, 'workflow_format_ui', 'This is an editor (UI) workflow; send the API-format graph (Export (API) in the editor).');
  const extra = body.extra_data;
  if (extra !== undefined && (!isJsonObject(extra) || Object.keys(extra).some((k) => k !== 'api_key_comfy_org'))) {
    return refuse(400, 'invalid_request', '"extra_data" accepts only api_key_comfy_org.');
  }
  const metadata = body.metadata;
  if (metadata !== undefined && (typeof metadata !== 'string' || Buffer.byteLength(metadata) > MAX_METADATA))
    return refuse(400, 'invalid_request', `"metadata" must be a string of at most ${MAX_METADATA} bytes.`);

  if (v2.mode === 'beside') {
    const state = core.accounts.stateOf(owner);
    if (state === 'no_credits')
      return refuse(402, 'insufficient_credits', 'Your account does not have enough credits to run this workflow. Add credits and try again.');
    if (state === 'inactive') return refuse(403, 'forbidden', 'Your plan does not allow API use. Upgrade your subscription to run workflows through the API.');
  }
  if (fault?.kind === 'not_ready')
    return refuse(429, 'deployment_not_ready', 'The deployment is still starting; retry after the given time.', null, fault.seconds);
  if (fault?.kind === 'queue_full') return refuse(429, 'queue_full', 'The queue is full; retry after the given time.', null, fault.seconds);

  const graph = structuredClone(workflow);
  const missing = resolveAssetRefs(graph, v2, owner);
  if (missing.length > 0) return refuse(422, 'missing_asset', 'The workflow refers to assets that do not exist or are not yours.', { missing_ids: missing });
  const result = validatePrompt(graph as JsonValue, core.nodes, core.files);
  if (result.kind === 'crash') return refuse(422, 'invalid_workflow', 'The workflow must be an object of nodes.');
  if (result.kind === 'rejected') {
    return refuse(422, 'invalid_workflow', result.error.message, {
      error: { type: result.error.type, details: result.error.details },
      node_errors: result.nodeErrors,
    });
  }

  const id = randomUUID();
  const execExtraData: JsonObject = isJsonObject(extra) ? { ...extra } : {};
  const job = enqueueJob(core, {
    number: core.queue.allocateNumber(false),
    promptId: id,
    clientId: null,
    owner,
    prompt: result.prompt,
    extraData: {},
    execExtraData,
    outputs: result.outputs,
  });
  const meta = v2.jobs.add({ id, owner, metadata: typeof metadata === 'string' ? metadata : null, workflow: graph });
  if (key !== undefined) v2.stats.jobsByKey.set(key, (v2.stats.jobsByKey.get(key) ?? 0) + 1);
  if (v2.faults.takeLostAnswer()) {
    req.socket.destroy();
    return true;
  }
  const origin = v2.originOf(req);
  if (v2.faults.holdAnswerMs > 0) await new Promise((r) => setTimeout(r, v2.faults.holdAnswerMs));
  if (!res.destroyed) sendV2Json(res, 201, v2.jobJson(meta, job, origin));
  return true;
}

export function getJob(req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null, id: string): void {
  const found = v2.jobs.get(id, owner);
  if (!found) return sendV2Error(res, 404, 'not_found', 'No job with this id (unknown, not yours, or past its retention).');
  sendV2Json(res, 200, v2.jobJson(found.meta, found.job, v2.originOf(req)));
}

export function listJobs(req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null, url: URL): void {
  if (v2.mode === 'beside') return sendV2Error(res, 501, 'not_implemented', 'Listing jobs is not available on this deployment yet; poll each job by its id.');
  const limitRaw = url.searchParams.get('limit');
  const limit = limitRaw === null ? 50 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return sendV2Error(res, 400, 'invalid_request', '"limit" must be a whole number from 1 to 100.');
  const wanted = url.searchParams.get('status')?.split(',').filter(Boolean) ?? null;
  const origin = v2.originOf(req);
  const all = v2.jobs.list(owner).filter(({ meta, job }) => !wanted || wanted.includes(v2.jobs.statusOf(meta, job)));
  sendV2Json(res, 200, { jobs: all.slice(0, limit).map(({ meta, job }) => v2.jobJson(meta, job, origin)), truncated: all.length > limit });
}

export function getJobWorkflow(_req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null, id: string): void {
  const found = v2.jobs.get(id, owner);
  if (!found) return sendV2Error(res, 404, 'not_found', 'No job with this id (unknown, not yours, or past its retention).');
  sendV2Json(res, 200, { format: 'api', workflow: found.meta.workflow });
}

/** Cancels one job: a waiting one at once, a running one at its next step (canceling, then canceled). */
export function postCancel(req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null, id: string): void {
  const found = v2.jobs.get(id, owner);
  if (!found) return sendV2Error(res, 404, 'not_found', 'No job with this id (unknown, not yours, or past its retention).');
  const { meta, job } = found;
  if (v2.faults.cancelsIgnored) {
    // The proxy asks the server to cancel, which an older one cannot; it answers the job as it is
    // ("canceling" while it runs) and the job runs on.
    const answer = v2.jobJson(meta, job, v2.originOf(req));
    if (answer.status === 'running') answer.status = 'canceling';
    return sendV2Json(res, 200, answer);
  }
  if (!isTerminalV2(v2.jobs.statusOf(meta, job))) {
    if (job.state === 'pending') {
      v2.core.queue.removePending([id]);
    } else {
      meta.cancelRequested = true;
      v2.core.worker.interrupt(id);
    }
    v2.core.hub.sendStatus();
  }
  sendV2Json(res, 200, v2.jobJson(meta, job, v2.originOf(req)));
}

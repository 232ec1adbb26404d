// POST /prompt (submit) and GET /prompt (queue size). Submission follows the local server's
// post_prompt: the number counter advances for every parsed body, `front` negates the number,
// client_id is merged into extra_data, the platform key is kept out of what queue and history
// show, and a rejected workflow answers 400 {error, node_errors}.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonObject, type JsonObject } from '@shared/json';
import { ownerScope, type DemoCore, type RequestInfo } from './core';
import { BodyTooLargeError, parseJsonBody, readBody, sendCloudError, sendJson, sendServerError, sendText } from './http-util';
import { pyTruthy } from './py-format';
import type { Job } from './queue';
import { validatePrompt, type PromptError } from './validate';

const MAX_PROMPT_BODY = 64 * 1024 * 1024;
const PROMPT_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** extra_data keys that carry credentials: given to the nodes, never shown in queue or history. */
const SENSITIVE_EXTRA_DATA_KEYS = ['auth_token_comfy_org', 'api_key_comfy_org'];

function rejection(res: ServerResponse, core: DemoCore, error: PromptError, nodeErrors: unknown = {}): void {
  sendJson(res, core.flavour, 400, { error, node_errors: nodeErrors });
}

/** A body the real server chokes on: its 500 page locally, a 400 {code, message} on the cloud. */
function malformed(res: ServerResponse, core: DemoCore, message: string): void {
  if (core.flavour === 'local') sendServerError(res, 'local');
  else sendCloudError(res, 400, 'invalid_request', message);
}

export async function postPrompt(req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): Promise<void> {
  core.stats.promptRequests += 1;
  let body: Buffer;
  try {
    body = await readBody(req, MAX_PROMPT_BODY);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      if (core.flavour === 'local') sendText(res, 413, '413: Request Entity Too Large');
      else sendCloudError(res, 413, 'payload_too_large', 'The request body is too large.');
      return;
    }
    throw error;
  }
  if (core.flavour === 'cloud') {
    const state = core.accounts.stateOf(info.key);
    if (state === 'no_credits') {
      sendCloudError(res, 402, 'insufficient_credits', 'Your account does not have enough credits to run this workflow. Add credits and try again.');
      return;
    }
    if (state === 'inactive') {
      sendCloudError(res, 429, 'subscription_inactive', 'Your subscription is not active. Renew it to run workflows.');
      return;
    }
  }

  const parsed = parseJsonBody(body);
  if (!parsed.ok) return malformed(res, core, 'The request body is not valid JSON.');
  const json = parsed.value;
  if (!isJsonObject(json)) {
    // `"prompt" in body`: a list never holds it; a string may (then indexing it crashes); others crash.
    if (Array.isArray(json) || (typeof json === 'string' && !json.includes('prompt'))) {
      return rejection(res, core, { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} });
    }
    return malformed(res, core, 'The request body must be a JSON object.');
  }

  let number: number;
  if (json.number !== undefined) {
    const n = typeof json.number === 'bigint' ? Number(json.number) : typeof json.number === 'string' ? Number(json.number) : json.number;
    if (typeof n !== 'number' || !Number.isFinite(n)) return malformed(res, core, '"number" must be a number.');
    number = n;
  } else {
    number = core.queue.allocateNumber(pyTruthy(json.front));
  }

  if (!Object.hasOwn(json, 'prompt')) {
    return rejection(res, core, { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} });
  }

  let promptId: string;
  if (json.prompt_id !== undefined && json.prompt_id !== null) {
    const candidate = json.prompt_id;
    if (typeof candidate !== 'string' || !PROMPT_ID_PATTERN.test(candidate)) {
      return rejection(res, core, {
        type: 'invalid_prompt_id',
        message: 'prompt_id must be a lowercase canonical UUID',
        details: String(candidate),
        extra_info: {},
      });
    }
    if (core.queue.isKnownId(candidate)) {
      return rejection(res, core, { type: 'invalid_prompt_id', message: 'prompt_id already exists', details: candidate, extra_info: {} });
    }
    promptId = candidate;
  } else {
    promptId = randomUUID();
  }

  const result = validatePrompt(json.prompt ?? null, core.nodes, core.files);
  if (result.kind === 'crash') return malformed(res, core, '"prompt" must be an object of nodes.');
  if (result.kind === 'rejected') return rejection(res, core, result.error, result.nodeErrors);

  const submitted = json.extra_data;
  if (submitted !== undefined && !isJsonObject(submitted)) return malformed(res, core, '"extra_data" must be an object.');
  const execExtraData: JsonObject = { ...(submitted ?? {}) };
  if (json.client_id !== undefined) execExtraData.client_id = json.client_id;
  const shown: JsonObject = { ...execExtraData };
  for (const key of SENSITIVE_EXTRA_DATA_KEYS) delete shown[key];

  enqueueJob(core, {
    number,
    promptId,
    clientId: typeof json.client_id === 'string' ? json.client_id : null,
    owner: core.flavour === 'cloud' ? info.key : null,
    prompt: result.prompt,
    extraData: shown,
    execExtraData,
    outputs: result.outputs,
  });
  sendJson(res, core.flavour, 200, { prompt_id: promptId, number, node_errors: result.nodeErrors });
}

/** Queues a validated job and counts its submission (POST /prompt, and v2's POST /api/v2/jobs). */
export function enqueueJob(core: DemoCore, fields: Omit<Job, 'createdAt' | 'updatedAt' | 'state' | 'abort'>): Job {
  const now = Date.now();
  const job: Job = { ...fields, createdAt: now, updatedAt: now, state: 'pending', abort: new AbortController() };
  core.queue.add(job);
  core.stats.submissions.set(job.promptId, (core.stats.submissions.get(job.promptId) ?? 0) + 1);
  core.hub.sendStatus();
  return job;
}

export function getPrompt(_req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): void {
  sendJson(res, core.flavour, 200, { exec_info: { queue_remaining: core.queue.remaining(ownerScope(core, info)) } });
}

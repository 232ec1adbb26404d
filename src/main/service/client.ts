// ServiceClient: the REST half of ServiceApi for both server kinds. Where the cloud service and
// the local server differ (job status, cancelling, downloads), the differences live here so that
// the job tracker, the CLI and the app see one behaviour. See PROTOCOL.md for the wire details.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JsonObject } from '@shared/json';
import { isJsonObject } from '@shared/json';
import { UNKNOWN_MIME, mimeForFileName } from '@shared/media-types';
import type { RetryPolicy } from './backoff';
import { multipartBody } from './multipart';
import { downloadOutput } from './download';
import { ServiceError, WorkflowRejectedError } from './errors';
import { exactJsonOf, HttpTransport, jsonOf, NoAnswerError, transportOptions, type HttpAnswer } from './http';
import type { ServiceLimits } from './limits';
import { parseNodeDefinitions, type NodeDefinitions } from './object-info';
import { readDefinitionsOf } from './node-definitions-of';
import { uploadLimitProblem } from '@main/images/upload-limits';
import { capabilitiesFor, parseFeatures, type ServerCapabilities, type ServerFeatures } from './capabilities';
import {
  localHistoryDepth,
  localHistoryJob,
  localJobPage,
  localQueuedJob,
  parseCloudJobDetail,
  parseCloudJobPage,
  jobListParams,
  type JobDetail,
  type JobListQuery,
  type JobPage,
} from './job-list';
import { readImageSize } from './upload-check';
import type {
  ApiKeyProvider,
  CancelResult,
  DownloadOptions,
  StopOutcome,
  DownloadResult,
  JobHistory,
  ServiceApi,
  SubmitOptions,
  UploadImageOptions,
  UploadMaskOptions,
} from './ports';
import {
  historyEntryFor,
  parseHistoryEntry,
  parseJobStatusAnswer,
  parseQueueAnswer,
  parseSubmitAnswer,
  parseUploadAnswer,
  rejectionFromBody,
} from './responses';
import type { FileRef, JobStatusReading, QueueSnapshot, ServerProfile, SubmitResult, UploadResult, Workflow } from './types';

export interface ServiceClientOptions {
  apiKey: ApiKeyProvider;
  fetch?: typeof fetch;
  retry?: Partial<RetryPolicy>;
  logger?: (line: string) => void;
  /** Timeout of one ordinary request (ms); uploads get `uploadTimeoutMs`. */
  timeoutMs?: number;
  /** Timeout of one upload (ms); default the answer deadline plus the file's size at the minimum throughput (limits.ts). */
  uploadTimeoutMs?: number;
  /** Size caps and deadlines; default serviceLimits() (the environment's overrides). */
  limits?: ServiceLimits;
  /** Told when a request has waited limits.waitNoticeMs for its answer (the CLI prints it). */
  onWait?: (message: string) => void;
}

/** The extra_data field partner nodes read the platform key from (the spec's "api_key_vendor_org"). */
export const PARTNER_KEY_FIELD = 'api_key_comfy_org';

/** The size cap of a local server's history for the job list: up to MAX_LOCAL_HISTORY_DEPTH entries, each with its workflow. */
const MAX_HISTORY_BYTES = 64 * 1024 * 1024;

function classTypesOf(workflow: Workflow): Set<string> {
  const classes = new Set<string>();
  for (const node of Object.values(workflow)) {
    if (isJsonObject(node) && typeof node.class_type === 'string') classes.add(node.class_type);
  }
  return classes;
}

export class ServiceClient implements ServiceApi {
  readonly profile: ServerProfile;
  readonly #http: HttpTransport;
  readonly #log: (line: string) => void;
  readonly #uploadTimeoutMs: number | null;
  #definitions: NodeDefinitions | null = null;
  #capabilities: ServerCapabilities;

  constructor(profile: ServerProfile, options: ServiceClientOptions) {
    this.profile = profile;
    this.#log = options.logger ?? (() => {});
    this.#http = new HttpTransport(profile, transportOptions(options));
    this.#uploadTimeoutMs = options.uploadTimeoutMs ?? null;
    this.#capabilities = capabilitiesFor(profile.kind);
  }

  // ------------------------------------------------------------ capabilities

  /** What this server can do: the kind's defaults until discover() has read /api/features. */
  get capabilities(): ServerCapabilities {
    return this.#capabilities;
  }

  /** GET /api/features; null when the server has none (404: a local or older server). */
  async getFeatures(signal?: AbortSignal): Promise<ServerFeatures | null> {
    const what = 'the server features';
    const answer = await this.#http.request({ method: 'GET', path: '/api/features', what, ...(signal ? { signal } : {}) });
    if (answer.status === 404) return null;
    if (answer.status < 200 || answer.status > 299) throw await this.#http.errorFor(answer, what);
    const features = parseFeatures(jsonOf(answer));
    if (!features) this.#log('features: the server answered /api/features with something else; using the defaults of its kind');
    return features;
  }

  /** Reads /api/features (again) and refines the capabilities with it; errors propagate, the defaults stay. */
  async discover(signal?: AbortSignal): Promise<ServerCapabilities> {
    const features = await this.getFeatures(signal);
    this.#capabilities = capabilitiesFor(this.profile.kind, features);
    return this.#capabilities;
  }

  // ------------------------------------------------------------ node definitions

  /** Fetches /api/object_info (and refreshes the cache submit() uses to spot partner nodes). */
  async getNodeDefinitions(signal?: AbortSignal): Promise<NodeDefinitions> {
    const limits = this.#http.limits;
    const answer = await this.#http.requestOk({
      method: 'GET',
      path: '/api/object_info',
      what: 'the node definitions',
      timeoutMs: limits.objectInfoTimeoutMs,
      maxBytes: limits.objectInfoBytes,
      ...(signal ? { signal } : {}),
    });
    const definitions = parseNodeDefinitions(answer.text);
    this.#definitions = definitions;
    return definitions;
  }

  /** The definitions of the given classes only (node-definitions-of.ts: one class per request on a local server). */
  getNodeDefinitionsOf(classes: readonly string[], signal?: AbortSignal): Promise<NodeDefinitions> {
    return readDefinitionsOf(this.#http, this.profile.kind, classes, () => this.getNodeDefinitions(signal), signal);
  }

  /** Whether the workflow holds a partner node class (`api_node: true`); fetches definitions once when needed. */
  async #needsPartnerKey(workflow: Workflow, signal?: AbortSignal): Promise<boolean> {
    const classes = classTypesOf(workflow);
    // A class the cached list lacks may be a newly installed node: refresh once.
    if (!this.#definitions || [...classes].some((c) => !this.#definitions?.has(c))) await this.getNodeDefinitions(signal);
    const definitions = this.#definitions ?? new Map();
    return [...classes].some((c) => definitions.get(c)?.apiNode === true);
  }

  /**
   * Like #needsPartnerKey, but a failure to read the definitions does not block the submit: the
   * workflow goes without the key, and a partner node in it then fails on the server with its
   * own message, while an ordinary workflow runs as it should.
   */
  async #needsPartnerKeyOrFalse(workflow: Workflow, signal?: AbortSignal): Promise<boolean> {
    try {
      return await this.#needsPartnerKey(workflow, signal);
    } catch (error) {
      if (error instanceof ServiceError && error.kind === 'cancelled') throw error;
      // A server that did not answer at all within the deadline would not answer the submit
      // either: failing now keeps the whole wait within one deadline.
      if (error instanceof NoAnswerError) throw error;
      this.#log(
        `submit: could not read the node definitions to spot partner nodes (${error instanceof Error ? error.message : String(error)}); sending without the partner key`,
      );
      return false;
    }
  }

  // ------------------------------------------------------------ submit

  async submit(workflow: Workflow, options: SubmitOptions): Promise<SubmitResult> {
    const extraData: JsonObject = { ...(options.extraData ?? {}) };
    // The key goes into the body only when a partner node needs it (older local servers show
    // extra_data in their queue), and only a key we have: no key, no object_info lookup.
    const key = await this.#partnerKey();
    if (key && (await this.#needsPartnerKeyOrFalse(workflow, options.signal))) extraData[PARTNER_KEY_FIELD] = key;

    const body: JsonObject = { prompt: workflow, client_id: options.clientId };
    if (Object.keys(extraData).length > 0) body.extra_data = extraData;
    if (options.promptId !== undefined) body.prompt_id = options.promptId;
    if (options.front) body.front = true;

    // Sent once: whether a send whose answer was lost got through is decided by the caller
    // (jobs/submit-job.ts), which asks the server before sending the same id again.
    const spec = {
      method: 'POST' as const,
      path: '/api/prompt',
      json: body,
      what: 'the workflow submission',
      idempotent: false,
      ...(options.signal ? { signal: options.signal } : {}),
    };
    return this.#readSubmit(await this.#http.request(spec));
  }

  async #partnerKey(): Promise<string | null> {
    // Local servers run partner nodes with the same platform key: they take no header, but the
    // body field is what the node reads, so a key the provider holds is used for either kind.
    return this.#http.providedKey();
  }

  async #readSubmit(answer: HttpAnswer): Promise<SubmitResult> {
    const body = jsonOf(answer);
    const secret = await this.#http.providedKey().catch(() => null);
    if (answer.status >= 200 && answer.status <= 299) return parseSubmitAnswer(body, answer.status, secret);
    if (answer.status === 400) {
      const rejection = rejectionFromBody(body, answer.status, secret);
      if (rejection) throw rejection;
      throw new WorkflowRejectedError('invalid_request', 'the request was refused as invalid (HTTP 400)', [], 400);
    }
    throw await this.#http.errorFor(answer, 'the workflow submission');
  }

  /** How requests that got no answer are retried (the submit's resend loop uses it too). */
  get retryPolicy(): RetryPolicy {
    return this.#http.retryPolicy;
  }

  // ------------------------------------------------------------ status and history

  /**
   * Cloud: /api/job/{id}/status; a 404 throws ServiceError kind 'not_found' (status 404): the
   * service does not know the job (expired, or never accepted), and the tracker decides whether
   * that means lost. Local: the history entry when the job has finished, else its place in the
   * queue, else `{raw:'unknown', known:false, phase:'running'}` (a local server that restarted
   * has forgotten its queue; the tracker checks further).
   */
  async getJobStatus(promptId: string, signal?: AbortSignal): Promise<JobStatusReading> {
    const sig = signal ? { signal } : {};
    if (this.#capabilities.jobStatus === 'status-endpoint') {
      const what = 'the job status';
      const answer = await this.#http.request({ method: 'GET', path: `/api/job/${encodeURIComponent(promptId)}/status`, what, ...sig });
      if (answer.status === 404) {
        throw new ServiceError('not_found', `The service has no job ${promptId} (it expired, or was never accepted).`, { status: 404, retryable: false });
      }
      if (answer.status < 200 || answer.status > 299) throw await this.#http.errorFor(answer, what);
      const reading = parseJobStatusAnswer(jsonOf(answer), await this.#http.providedKey().catch(() => null));
      if (!reading)
        throw new ServiceError('protocol', 'The server answered the job status without a status word.', { status: answer.status, retryable: false });
      return reading;
    }
    const finished = await this.getHistory(promptId, signal);
    if (finished) return finished.reading;
    const queue = await this.getQueue(signal);
    if (queue.running.some((e) => e.promptId === promptId)) return { phase: 'running', raw: 'in_progress', known: true };
    if (queue.pending.some((e) => e.promptId === promptId)) return { phase: 'pending', raw: 'pending', known: true };
    // The job may have finished between the two reads: look at the history once more.
    const late = await this.getHistory(promptId, signal);
    if (late) return late.reading;
    return { phase: 'running', raw: 'unknown', known: false };
  }

  async getHistory(promptId: string, signal?: AbortSignal): Promise<JobHistory | null> {
    const what = 'the job history';
    const answer = await this.#http.request({ method: 'GET', path: `/api/history/${encodeURIComponent(promptId)}`, what, ...(signal ? { signal } : {}) });
    if (answer.status === 404) return null;
    if (answer.status < 200 || answer.status > 299) throw await this.#http.errorFor(answer, what);
    const entry = historyEntryFor(exactJsonOf(answer), promptId);
    if (entry === undefined) return null;
    const parsed = parseHistoryEntry(entry, await this.#http.providedKey().catch(() => null));
    if (!parsed) throw new ServiceError('protocol', 'The server sent a history entry this client cannot read.', { status: answer.status, retryable: false });
    return parsed;
  }

  // ------------------------------------------------------------ queue

  getQueue(signal?: AbortSignal): Promise<QueueSnapshot> {
    return this.#readQueue(signal, false);
  }

  /** The queue; `details`: with each job's workflow, read exactly (for the local job list). */
  async #readQueue(signal: AbortSignal | undefined, details: boolean): Promise<QueueSnapshot> {
    const answer = await this.#http.requestOk({ method: 'GET', path: '/api/queue', what: 'the queue', ...(signal ? { signal } : {}) });
    const queue = parseQueueAnswer(details ? exactJsonOf(answer) : jsonOf(answer), { details });
    if (!queue) throw new ServiceError('protocol', 'The server sent a queue this client cannot read.', { status: answer.status, retryable: false });
    return queue;
  }

  /**
   * Cancels jobs. `{delete}` removes waiting jobs only, on both kinds. Locally an id found running
   * is then stopped with `/api/interrupt {prompt_id}` (only a running id: servers older than that
   * field ignore the body and stop whatever runs, which must not hit another job). On the cloud a
   * running job cannot be stopped alone (its interrupt stops all of the account's running jobs):
   * such ids come back in `stillRunning`, for stopJob() with the user's consent.
   */
  async cancel(promptIds: string[]): Promise<CancelResult> {
    if (promptIds.length === 0) return { stillRunning: [] };
    await this.#http.requestOk({ method: 'POST', path: '/api/queue', json: { delete: promptIds }, idempotent: true, what: 'cancelling jobs' });
    const running = new Set((await this.getQueue()).running.map((e) => e.promptId));
    const stillRunning: string[] = [];
    for (const id of promptIds) {
      if (!running.has(id)) continue;
      if (this.#capabilities.interrupt === 'one-prompt') await this.#interruptOne(id);
      else stillRunning.push(id);
    }
    return { stillRunning };
  }

  async #interruptOne(promptId: string): Promise<void> {
    await this.#http.requestOk({ method: 'POST', path: '/api/interrupt', json: { prompt_id: promptId }, idempotent: true, what: 'stopping a running job' });
  }

  /**
   * Stops one job, waiting or running. A running job on a server whose interrupt stops every
   * running job (the cloud) is stopped only when it runs alone or `stopOthers` is set; otherwise
   * nothing is stopped and the answer says how many would be, so the caller can ask the user.
   */
  async stopJob(promptId: string, options: { stopOthers?: boolean } = {}): Promise<StopOutcome> {
    const { stillRunning } = await this.cancel([promptId]);
    if (stillRunning.length === 0) return { kind: 'stopped' };
    const running = (await this.getQueue()).running.map((e) => e.promptId);
    if (!running.includes(promptId)) return { kind: 'stopped' }; // it ended meanwhile
    if (running.length > 1 && options.stopOthers !== true) return { kind: 'would_stop_others', running: running.length };
    await this.#interruptAll();
    return { kind: 'stopped', stoppedRunning: running.length };
  }

  async clearPending(): Promise<void> {
    await this.#http.requestOk({ method: 'POST', path: '/api/queue', json: { clear: true }, idempotent: true, what: 'clearing the queue' });
  }

  /**
   * /api/interrupt. Locally with an id: that job only, and only while it runs (see cancel). On the
   * cloud every running job of the account stops, whatever the id: callers that mean one job use
   * stopJob(), which asks first.
   */
  async interrupt(promptId?: string): Promise<void> {
    if (promptId !== undefined && this.#capabilities.interrupt === 'one-prompt') {
      const running = (await this.getQueue()).running.some((e) => e.promptId === promptId);
      if (running) await this.#interruptOne(promptId);
      return;
    }
    await this.#interruptAll();
  }

  async #interruptAll(): Promise<void> {
    // Not retried: a resend could stop the next job.
    await this.#http.requestOk({ method: 'POST', path: '/api/interrupt', idempotent: false, what: 'interrupting the running jobs' });
  }

  // ------------------------------------------------------------ job list

  /**
   * The server's jobs, one page, newest first by default. Cloud: GET /api/jobs. Local: its
   * history and queue in the same shape (filtered, sorted and paged here).
   */
  async listJobs(query: JobListQuery = {}, signal?: AbortSignal): Promise<JobPage> {
    const sig = signal ? { signal } : {};
    const secret = await this.#http.providedKey().catch(() => null);
    if (this.#capabilities.jobList === 'jobs-endpoint') {
      const answer = await this.#http.requestOk({ method: 'GET', path: '/api/jobs', query: jobListParams(query), what: 'the job list', ...sig });
      const page = parseCloudJobPage(jsonOf(answer), secret);
      if (!page) throw new ServiceError('protocol', 'The server sent a job list this client cannot read.', { status: answer.status, retryable: false });
      return page;
    }
    // Queue first, then history: a job leaving the queue meanwhile is in the history by then.
    const queue = await this.#readQueue(signal, true);
    // Only the newest entries the query needs (each holds its workflow), read exactly: 64-bit
    // seeds keep every digit.
    const depth = localHistoryDepth(query);
    const answer = await this.#http.requestOk({
      method: 'GET',
      path: '/api/history',
      query: { max_items: String(depth) },
      maxBytes: MAX_HISTORY_BYTES,
      what: 'the job history',
      ...sig,
    });
    const history = exactJsonOf(answer);
    if (!isJsonObject(history))
      throw new ServiceError('protocol', 'The server sent a history this client cannot read.', { status: answer.status, retryable: false });
    return localJobPage(history, queue, query, secret, depth);
  }

  /** One job with its workflow and outputs; ServiceError 'not_found' when the server has no such job. */
  async getJob(promptId: string, signal?: AbortSignal): Promise<JobDetail> {
    const sig = signal ? { signal } : {};
    const secret = await this.#http.providedKey().catch(() => null);
    const notFound = (): ServiceError => new ServiceError('not_found', `The server has no job ${promptId}.`, { status: 404, retryable: false });
    if (this.#capabilities.jobList === 'jobs-endpoint') {
      const what = 'the job';
      const answer = await this.#http.request({ method: 'GET', path: `/api/jobs/${encodeURIComponent(promptId)}`, what, ...sig });
      if (answer.status === 404) throw notFound();
      if (answer.status < 200 || answer.status > 299) throw await this.#http.errorFor(answer, what);
      const job = parseCloudJobDetail(exactJsonOf(answer), secret);
      if (!job) throw new ServiceError('protocol', 'The server sent a job this client cannot read.', { status: answer.status, retryable: false });
      return job;
    }
    const queue = await this.#readQueue(signal, true);
    const running = queue.running.find((e) => e.promptId === promptId);
    if (running) return localQueuedJob(running, 'in_progress');
    const pending = queue.pending.find((e) => e.promptId === promptId);
    if (pending) return localQueuedJob(pending, 'pending');
    const answer = await this.#http.requestOk({ method: 'GET', path: `/api/history/${encodeURIComponent(promptId)}`, what: 'the job history', ...sig });
    const entry = historyEntryFor(exactJsonOf(answer), promptId);
    if (entry === undefined) throw notFound();
    const job = localHistoryJob(promptId, entry, secret);
    if (!job) throw new ServiceError('protocol', 'The server sent a history entry this client cannot read.', { status: answer.status, retryable: false });
    return job;
  }

  // ------------------------------------------------------------ uploads

  async uploadImage(filePath: string, options: UploadImageOptions = {}): Promise<UploadResult> {
    const type = options.type ?? 'input';
    const filename = options.filename ?? path.basename(filePath);
    const fields: Record<string, string> = { type, overwrite: options.overwrite ? 'true' : 'false' };
    if (options.subfolder !== undefined) fields.subfolder = options.subfolder;
    return this.#upload('/api/upload/image', filePath, filename, fields, type, `uploading ${filename}`, options.signal);
  }

  async uploadMask(filePath: string, options: UploadMaskOptions): Promise<UploadResult> {
    const filename = options.filename ?? path.basename(filePath);
    const ref = options.originalRef;
    // Always with `type`: without it a local server assumes "output" and misses the original.
    const originalRef = JSON.stringify({ filename: ref.filename, subfolder: ref.subfolder ?? '', type: ref.type || 'input' });
    const fields: Record<string, string> = { type: 'input', subfolder: options.subfolder ?? ref.subfolder ?? '', original_ref: originalRef };
    if (options.overwrite !== undefined) fields.overwrite = options.overwrite ? 'true' : 'false';
    return this.#upload('/api/upload/mask', filePath, filename, fields, 'input', `uploading the mask ${filename}`, options.signal);
  }

  async #upload(
    endpoint: string,
    filePath: string,
    filename: string,
    fields: Record<string, string>,
    defaultType: string,
    what: string,
    signal: AbortSignal | undefined,
  ): Promise<UploadResult> {
    // Checked before a byte is sent: a file the server would refuse is never uploaded.
    const size = (await fs.promises.stat(filePath)).size;
    // The kind's limits, or the server's max_upload_size once discover() has read it.
    const uploadLimits = this.#capabilities.uploadLimits;
    const dimensions = uploadLimits.maxEdgePx !== null || uploadLimits.maxPixels !== null ? await readImageSize(filePath) : null;
    const problem = uploadLimitProblem(uploadLimits, { name: filename, bytes: size, width: dimensions?.width ?? null, height: dimensions?.height ?? null });
    if (problem) throw new ServiceError('invalid_workflow', problem, { retryable: false });
    const mime = mimeForFileName(filename) ?? UNKNOWN_MIME;
    // Streamed from disk as it is sent (multipart.ts), a fresh stream for each attempt.
    const form = async () => multipartBody({ field: 'image', path: filePath, filename, contentType: mime, size }, fields);
    // Idempotent: the local server keeps one file for the same name and bytes, the cloud is
    // content-addressed; a resend yields the same name.
    // The deadline grows with the file: the answer deadline plus the time to send it at the
    // minimum throughput (limits.ts), so a large upload on a slow line is not cut, nor a hang waited out.
    const limits = this.#http.limits;
    const timeoutMs = this.#uploadTimeoutMs ?? limits.answerTimeoutMs + Math.ceil((size / limits.minBytesPerSecond) * 1000);
    const answer = await this.#http.requestOk({ method: 'POST', path: endpoint, form, idempotent: true, timeoutMs, what, ...(signal ? { signal } : {}) });
    const result = parseUploadAnswer(jsonOf(answer), defaultType);
    if (!result) throw new ServiceError('protocol', `The server's answer to ${what} has no file name.`, { status: answer.status, retryable: false });
    return result;
  }

  // ------------------------------------------------------------ downloads

  async download(ref: FileRef, destDir: string, options: DownloadOptions = {}): Promise<DownloadResult> {
    return downloadOutput(this.#http, ref, destDir, options);
  }
}

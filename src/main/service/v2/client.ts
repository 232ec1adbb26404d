// V2Client: ServiceApi over Comfy API v2 (openapi-v2.yaml, PROTOCOL.md "Comfy API v2"), for the
// cloud (with its v1 API beside, for node definitions, the queue and history), a serverless
// deployment and a self-hosted proxy (v2 only, or with the server's own API at another address).
// Jobs and assets go through v2: inputs by hash then upload on a miss, submits with an
// Idempotency-Key, the job resource as the truth, one job cancelled at a time, outputs through
// their links. What v2 lacks comes from `v1` when there is one, and is refused plainly otherwise.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { JsonObject } from '@shared/json';
import { isJsonObject } from '@shared/json';
import { sleep as realSleep } from '../backoff';
import { uploadLimitProblem } from '@main/images/upload-limits';
import { v2CapabilitiesFor, type ServerCapabilities, type ServerFeatures } from '../capabilities';
import { downloadOutput } from '../download';
import { ServiceError, WorkflowRejectedError } from '../errors';
import { HttpTransport, jsonOf, transportOptions } from '../http';
import type { JobDetail, JobListQuery, JobPage } from '../job-list';
import type { NodeDefinitions } from '../object-info';
import type {
  CancelResult,
  DownloadOptions,
  DownloadResult,
  JobHistory,
  ServiceApi,
  StopOutcome,
  SubmitOptions,
  UploadImageOptions,
  UploadMaskOptions,
} from '../ports';
import type { ServiceClientOptions } from '../client';
import type { FileRef, JobStatusReading, QueueSnapshot, ServerProfile, SubmitResult, UploadResult, Workflow } from '../types';
import { AssetUploader } from './assets';
import { assetOpener, type KnownLink } from './download';
import { v2ErrorFor } from './errors';
import { ASSET_INPUT_PREFIX, assetIdOf, detailOf, historyOf, isTerminalStatus, readingOf } from './job-mapping';
import { submitV2 } from './submit';
import { assetReference, jobListSchema, jobSchema, workflowAnswerSchema, type V2Job } from './wire';
import { composeMaskFile } from '@main/images/mask-compose';
import { randomUUID } from 'node:crypto';

export interface V2ClientOptions extends ServiceClientOptions {
  /** The v1 API beside v2 (node definitions, queue, history), or null on a v2-only surface. */
  v1: ServiceApi | null;
  /** The server answered 401 without a key (discovery): it needs one. */
  needsApiKey?: boolean;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The Flowdeck id a job is known by: the server's job id. */
export class V2Client implements ServiceApi {
  readonly profile: ServerProfile;
  readonly #http: HttpTransport;
  readonly #v1: ServiceApi | null;
  readonly #capabilities: ServerCapabilities;
  readonly #log: (line: string) => void;
  readonly #onWait: ((message: string) => void) | undefined;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #assets: AssetUploader;
  /** Local path of each asset this client uploaded or minted (a missing_asset answer sends them again). */
  readonly #assetPaths = new Map<string, { path: string; filePath: string }>();
  /** The latest links of outputs seen in job reads, by asset id. */
  readonly #links = new Map<string, KnownLink>();
  /** The `urls` each job came with (follow links, never build them). */
  readonly #jobUrls = new Map<string, { self: string | null; cancel: string | null; events: string | null }>();
  /**
   * Each job's `expires_at` as last read (epoch ms; null when the server did not say), and whether
   * that read saw the job ended (then a missing one will not come later).
   */
  readonly #expiries = new Map<string, { at: number | null; final: boolean }>();
  readonly #submittedListeners = new Set<(job: { id: string; eventsUrl: string | null }) => void>();

  constructor(profile: ServerProfile, options: V2ClientOptions) {
    this.profile = profile;
    this.#v1 = options.v1;
    this.#log = options.logger ?? (() => {});
    this.#onWait = options.onWait;
    this.#sleep = options.sleep ?? realSleep;
    this.#http = new HttpTransport(profile, transportOptions(options, { auth: 'bearer' }));
    // Whether a key is needed is what the server said (401 to a request without one), never the
    // kind guessed from an address: a self-hosted proxy without a token takes none.
    this.#capabilities = v2CapabilitiesFor({ v1Beside: options.v1 !== null, needsApiKey: options.needsApiKey === true });
    const limits = this.#http.limits;
    const uploadTimeout = (bytes: number): number => options.uploadTimeoutMs ?? limits.answerTimeoutMs + Math.ceil((bytes / limits.minBytesPerSecond) * 1000);
    this.#assets = new AssetUploader(this.#http, () => this.#secret(), uploadTimeout);
  }

  get capabilities(): ServerCapabilities {
    return this.#capabilities;
  }

  /** The transport (the event stream reads through it: same key rules, same limits). */
  get transport(): HttpTransport {
    return this.#http;
  }

  /** Told each job this client submitted, with its events link (the event stream follows it). */
  onSubmitted(listener: (job: { id: string; eventsUrl: string | null }) => void): () => void {
    this.#submittedListeners.add(listener);
    return () => this.#submittedListeners.delete(listener);
  }

  /** The events link a job came with, when this client has read the job. */
  eventsUrlOf(jobId: string): string | null {
    return this.#jobUrls.get(jobId)?.events ?? null;
  }

  #secret(): Promise<string | null> {
    return this.#http.providedKey().catch(() => null);
  }

  #noV1(what: string): ServiceError {
    return new ServiceError(
      'protocol',
      `This server speaks only Comfy API v2, which has no ${what}. Use the server's own address (a self-hosted server's API) or the cloud for it.`,
      { retryable: false },
    );
  }

  // ------------------------------------------------------------ discovery, v1 beside

  async discover(signal?: AbortSignal): Promise<ServerCapabilities> {
    await this.#v1?.discover(signal).catch(() => undefined);
    return this.#capabilities;
  }

  async getFeatures(signal?: AbortSignal): Promise<ServerFeatures | null> {
    return this.#v1 ? this.#v1.getFeatures(signal) : null;
  }

  getNodeDefinitions(signal?: AbortSignal): Promise<NodeDefinitions> {
    return this.#v1 ? this.#v1.getNodeDefinitions(signal) : Promise.reject(this.#noV1('node definitions'));
  }

  getNodeDefinitionsOf(classes: readonly string[], signal?: AbortSignal): Promise<NodeDefinitions> {
    if (!this.#v1) return Promise.reject(this.#noV1('node definitions'));
    return this.#v1.getNodeDefinitionsOf ? this.#v1.getNodeDefinitionsOf(classes, signal) : this.#v1.getNodeDefinitions(signal);
  }

  getQueue(signal?: AbortSignal): Promise<QueueSnapshot> {
    return this.#v1 ? this.#v1.getQueue(signal) : Promise.reject(this.#noV1('queue'));
  }

  clearPending(): Promise<void> {
    return this.#v1 ? this.#v1.clearPending() : Promise.reject(this.#noV1('queue to clear'));
  }

  /**
   * The cloud's v1 list where it is there; else GET /api/v2/jobs, newest first, at most the 100
   * most recent (a self-hosted proxy lists them; a surface that answers 501 has no job history).
   */
  async listJobs(query: JobListQuery = {}, signal?: AbortSignal): Promise<JobPage> {
    if (this.#v1) return this.#v1.listJobs(query, signal);
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 100;
    const what = 'the job list';
    const answer = await this.#http.request({
      method: 'GET',
      path: '/api/v2/jobs',
      query: { limit: String(Math.min(100, offset + limit)) },
      what,
      ...(signal ? { signal } : {}),
    });
    if (answer.status === 501) throw this.#noV1('job history (this surface does not list its jobs)');
    if (answer.status < 200 || answer.status > 299) throw v2ErrorFor(answer, what, await this.#secret());
    const list = jobListSchema.safeParse(jsonOf(answer));
    if (!list.success) throw new ServiceError('protocol', 'The server sent a job list this client cannot read.', { status: answer.status, retryable: false });
    for (const job of list.data.jobs) this.#note(job);
    const page = list.data.jobs.slice(offset, offset + limit).map((job) => detailOf(job, null));
    return { jobs: page, pagination: { offset, limit, total: list.data.jobs.length, hasMore: false } };
  }

  // ------------------------------------------------------------ jobs

  async #readJob(jobId: string, signal?: AbortSignal): Promise<V2Job> {
    const what = 'the job';
    const link = this.#jobUrls.get(jobId)?.self;
    const target = link ? new URL(link, this.#http.url('/')) : null;
    const sameOrigin = target !== null && target.origin === this.#http.url('/').origin;
    const answer = await this.#http.request({
      method: 'GET',
      path: sameOrigin ? target.pathname : `/api/v2/jobs/${encodeURIComponent(jobId)}`,
      what,
      ...(signal ? { signal } : {}),
    });
    if (answer.status === 404)
      throw new ServiceError('not_found', `The server has no job ${jobId} (unknown, or past its retention).`, { status: 404, retryable: false });
    if (answer.status < 200 || answer.status > 299) throw v2ErrorFor(answer, what, await this.#secret());
    const job = jobSchema.safeParse(jsonOf(answer));
    if (!job.success) throw new ServiceError('protocol', 'The server sent a job this client cannot read.', { status: answer.status, retryable: false });
    this.#note(job.data);
    return job.data;
  }

  #note(job: V2Job): void {
    const expires = job.expires_at ? Date.parse(job.expires_at) : Number.NaN;
    this.#expiries.set(job.id, { at: Number.isFinite(expires) ? expires : null, final: isTerminalStatus(job.status) });
    if (job.urls) this.#jobUrls.set(job.id, { self: job.urls.self ?? null, cancel: job.urls.cancel ?? null, events: job.urls.events ?? null });
    for (const output of job.outputs ?? []) {
      if (output.url) this.#links.set(output.id, { url: output.url, expiresAt: output.url_expires_at ? Date.parse(output.url_expires_at) || null : null });
    }
  }

  /** The job resource as the server sent it (the event stream reads a job's end from it). */
  getJobResource(jobId: string, signal?: AbortSignal): Promise<V2Job> {
    return this.#readJob(jobId, signal);
  }

  /** The job's `expires_at` as last read where a read stated it, else read now. */
  async retentionOf(promptId: string, signal?: AbortSignal): Promise<number | null> {
    // Any read that stated it (the submit's answer, the read that saw the end) spares a request.
    const known = this.#expiries.get(promptId);
    if (known && (known.at !== null || known.final)) return known.at;
    await this.#readJob(promptId, signal);
    return this.#expiries.get(promptId)?.at ?? null;
  }

  async getJobStatus(promptId: string, signal?: AbortSignal): Promise<JobStatusReading> {
    return readingOf(await this.#readJob(promptId, signal));
  }

  /** A finished job's outputs and failure (the job resource is the truth); null while it runs. */
  async getHistory(promptId: string, signal?: AbortSignal): Promise<JobHistory | null> {
    let job: V2Job;
    try {
      job = await this.#readJob(promptId, signal);
    } catch (error) {
      if (error instanceof ServiceError && error.kind === 'not_found') return null;
      throw error;
    }
    return isTerminalStatus(job.status) ? historyOf(job) : null;
  }

  /** The job with its workflow (GET .../workflow: `api` or the editor's `save` graph). */
  async getJob(promptId: string, signal?: AbortSignal): Promise<JobDetail> {
    const job = await this.#readJob(promptId, signal);
    const what = 'the workflow of the job';
    const answer = await this.#http.request({
      method: 'GET',
      path: `/api/v2/jobs/${encodeURIComponent(promptId)}/workflow`,
      what,
      ...(signal ? { signal } : {}),
    });
    const parsed = answer.status >= 200 && answer.status <= 299 ? workflowAnswerSchema.safeParse(jsonOf(answer)) : null;
    const workflow = parsed?.success && parsed.data.format === 'api' ? (parsed.data.workflow as Workflow) : null;
    // `save`: the editor graph the job was made from; the caller converts it as any UI file.
    const editorGraph = parsed?.success && parsed.data.format === 'save' ? (parsed.data.workflow as JsonObject) : null;
    return { ...detailOf(job, workflow), editorGraph };
  }

  // ------------------------------------------------------------ submit

  async submit(workflow: Workflow, options: SubmitOptions): Promise<SubmitResult> {
    const key = options.idempotencyKey ?? randomUUID();
    const extraData = await this.#partnerExtraData();
    const send = (graph: JsonObject, idempotencyKey: string): Promise<V2Job> =>
      submitV2(
        { http: this.#http, secret: () => this.#secret(), log: this.#log, onWait: this.#onWait, sleep: this.#sleep },
        { workflow: graph, idempotencyKey, extraData, signal: options.signal },
      );
    let job: V2Job;
    try {
      job = await send(this.#expandAssetInputs(workflow), key);
    } catch (error) {
      // The server lost an input (restarted, expired): send the files once more, then fail plainly.
      if (!(error instanceof WorkflowRejectedError) || error.errorType !== 'missing_asset') throw error;
      const resent = await this.#reuploadInputs(workflow, options.signal);
      if (!resent) throw error;
      this.#log(`submit: the server was missing an input; uploaded it again and sending once more`);
      // The refused send made no job, so its key was released: the same key is sent again.
      job = await send(this.#expandAssetInputs(workflow), key);
    }
    this.#note(job);
    for (const listener of this.#submittedListeners) listener({ id: job.id, eventsUrl: job.urls?.events ?? null });
    return { promptId: job.id, number: null };
  }

  async #partnerExtraData(): Promise<JsonObject | undefined> {
    // v2 takes the platform key for partner nodes in extra_data, forwarded and never echoed; it
    // goes only to the cloud (v1 beside), which runs the job under that very key anyway.
    if (this.profile.kind !== 'cloud' || this.#v1 === null) return undefined;
    const key = await this.#http.providedKey();
    return key ? { api_key_comfy_org: key } : undefined;
  }

  /** The workflow with each `core/ASSET:<id>` input (uploadImage's answer) as the reference object v2 takes. */
  #expandAssetInputs(workflow: Workflow): JsonObject {
    const graph = structuredClone(workflow);
    for (const node of Object.values(graph)) {
      if (!isJsonObject(node) || !isJsonObject(node.inputs)) continue;
      for (const [name, value] of Object.entries(node.inputs)) {
        if (typeof value !== 'string' || !value.startsWith(ASSET_INPUT_PREFIX)) continue;
        const id = value.slice(ASSET_INPUT_PREFIX.length);
        const known = this.#assetPaths.get(id);
        node.inputs[name] = assetReference({ id, ...(known ? { file_path: known.filePath } : {}) });
      }
    }
    return graph;
  }

  /** Uploads again every input of `workflow` this client knows the file of; whether there were any. */
  async #reuploadInputs(workflow: Workflow, signal?: AbortSignal): Promise<boolean> {
    this.#assets.forget();
    let any = false;
    for (const node of Object.values(workflow)) {
      if (!isJsonObject(node) || !isJsonObject(node.inputs)) continue;
      for (const [name, value] of Object.entries(node.inputs)) {
        if (typeof value !== 'string' || !value.startsWith(ASSET_INPUT_PREFIX)) continue;
        const known = this.#assetPaths.get(value.slice(ASSET_INPUT_PREFIX.length));
        // A file gone since (a mask composed in a temporary folder, an input moved away) cannot
        // go again: the missing asset is then reported plainly.
        if (
          !known ||
          !(await stat(known.path).then(
            (s) => s.isFile(),
            () => false,
          ))
        )
          continue;
        const fresh = await this.#assets.ensure(known.path, known.filePath, signal);
        this.#assetPaths.set(fresh.asset.id, known);
        node.inputs[name] = ASSET_INPUT_PREFIX + fresh.asset.id;
        any = true;
      }
    }
    return any;
  }

  // ------------------------------------------------------------ assets

  /** The file as an asset (by hash, uploading only on a miss); the answer's name is the input value `core/ASSET:<id>`. */
  async uploadImage(filePath: string, options: UploadImageOptions = {}): Promise<UploadResult> {
    const filename = options.filename ?? path.basename(filePath);
    // Checked before a byte is read or sent: a file over the request limit is never uploaded.
    const problem = uploadLimitProblem(this.#capabilities.uploadLimits, { name: filename, bytes: (await stat(filePath)).size, width: null, height: null });
    if (problem) throw new ServiceError('invalid_workflow', problem, { retryable: false });
    const { asset, how } = await this.#assets.ensure(filePath, filename, options.signal);
    this.#log(`asset ${filename}: ${how} (${asset.id})`);
    this.#assetPaths.set(asset.id, { path: filePath, filePath: filename });
    return { name: ASSET_INPUT_PREFIX + asset.id, subfolder: '', type: 'input' };
  }

  /**
   * v2 has no mask upload: the mask is composed here as the v1 server composes it (the original's
   * colours, the mask's alpha) and the result is sent as an asset of its own (once per server, by
   * hash, like any input). The original must be one this client uploaded (its file is known).
   */
  async uploadMask(filePath: string, options: UploadMaskOptions): Promise<UploadResult> {
    const ref = options.originalRef.filename;
    const original = ref.startsWith(ASSET_INPUT_PREFIX) ? this.#assetPaths.get(ref.slice(ASSET_INPUT_PREFIX.length)) : undefined;
    if (!original)
      throw new ServiceError('protocol', `The mask's original image (${ref}) was not uploaded by this client, so the mask cannot be combined with it here.`, {
        retryable: false,
      });
    const work = await mkdtemp(path.join(tmpdir(), 'flowdeck-v2-mask-'));
    try {
      const name = options.filename ?? `${path.basename(original.filePath, path.extname(original.filePath))}-masked.png`;
      const out = path.join(work, path.basename(name));
      await composeMaskFile(original.path, filePath, out);
      const uploaded = await this.uploadImage(out, { filename: path.basename(name), ...(options.signal ? { signal: options.signal } : {}) });
      // The composed file goes with the temporary folder: it cannot be sent again on missing_asset.
      this.#assetPaths.delete(uploaded.name.slice(ASSET_INPUT_PREFIX.length));
      return uploaded;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  // ------------------------------------------------------------ cancel

  async #cancelOne(jobId: string): Promise<V2Job | null> {
    const what = 'cancelling the job';
    const link = this.#jobUrls.get(jobId)?.cancel;
    const target = link ? new URL(link, this.#http.url('/')) : null;
    const sameOrigin = target !== null && target.origin === this.#http.url('/').origin;
    // Idempotent on the server: a resend of a cancel is harmless.
    const answer = await this.#http.request({
      method: 'POST',
      path: sameOrigin ? target.pathname : `/api/v2/jobs/${encodeURIComponent(jobId)}/cancel`,
      idempotent: true,
      what,
    });
    if (answer.status === 404) return null;
    if (answer.status < 200 || answer.status > 299) throw v2ErrorFor(answer, what, await this.#secret());
    const job = jobSchema.safeParse(jsonOf(answer));
    return job.success ? job.data : null;
  }

  /** v2 cancels each job by itself, waiting or running: nothing is ever left for stopJob's question. */
  async cancel(promptIds: string[]): Promise<CancelResult> {
    for (const id of promptIds) await this.#cancelOne(id);
    return { stillRunning: [] };
  }

  async stopJob(promptId: string): Promise<StopOutcome> {
    await this.#cancelOne(promptId);
    return { kind: 'stopped' };
  }

  async interrupt(promptId?: string): Promise<void> {
    if (promptId !== undefined) {
      await this.#cancelOne(promptId);
      return;
    }
    if (!this.#v1) throw this.#noV1('"stop everything" (name the job to cancel)');
    await this.#v1.interrupt();
  }

  // ------------------------------------------------------------ downloads

  async download(ref: FileRef, destDir: string, options: DownloadOptions = {}): Promise<DownloadResult> {
    const assetId = assetIdOf(ref);
    if (assetId === null) {
      if (this.#v1) return this.#v1.download(ref, destDir, options);
      throw new ServiceError('protocol', `The output ${ref.filename} is not a v2 asset, and this server has no other way to fetch it.`, { retryable: false });
    }
    return downloadOutput(
      this.#http,
      ref,
      destDir,
      options,
      assetOpener(this.#http, assetId, this.#links.get(assetId) ?? null, () => this.#secret()),
    );
  }
}

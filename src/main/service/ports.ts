// The interfaces the rest of the app depends on. `ServiceClient` (client.ts) implements
// ServiceApi over HTTP and `EventsSocket` (events-socket.ts) implements EventStream over the
// WebSocket; the job tracker, the CLI and the desktop app take these interfaces so they can be
// tested and composed without knowing the transport.
import type { JsonObject } from '@shared/json';
import type { RetryPolicy } from './backoff';
import type { ServerCapabilities, ServerFeatures } from './capabilities';
import type { JobDetail, JobListQuery, JobPage } from './job-list';
import type { NodeDefinitions } from './object-info';
import type {
  ConnectionState,
  FileRef,
  JobStatusReading,
  OutputFile,
  QueueSnapshot,
  ServerEvent,
  ServerProfile,
  SubmitResult,
  UploadResult,
  Workflow,
} from './types';

/** Supplies the API key when a request needs it; null when none is set. Never cached in logs. */
export type ApiKeyProvider = () => string | null | Promise<string | null>;

export interface UploadImageOptions {
  type?: 'input' | 'temp';
  overwrite?: boolean;
  subfolder?: string;
  /** File name sent to the server; defaults to the file's base name. */
  filename?: string;
  signal?: AbortSignal;
}

export interface UploadMaskOptions {
  /** The uploaded original the mask belongs to. */
  originalRef: FileRef;
  subfolder?: string;
  filename?: string;
  overwrite?: boolean;
  signal?: AbortSignal;
}

export interface SubmitOptions {
  /** Must equal the events socket's clientId so a local server routes the job's events to us. */
  clientId: string;
  /** Client-chosen id (lowercase canonical UUID) so a submit can be retried safely. */
  promptId?: string;
  /**
   * Comfy API v2: the Idempotency-Key of this submit, journaled with the intent before the send
   * (jobs/submit-v2.ts), so a send whose answer never came is sent again under the same key.
   */
  idempotencyKey?: string;
  /** Put the job at the front of the queue (local servers). */
  front?: boolean;
  /** Sent as extra_data (e.g. extra_pnginfo); the partner-node key is added to it when needed. */
  extraData?: JsonObject;
  signal?: AbortSignal;
}

export interface DownloadOptions {
  signal?: AbortSignal;
  /** Called with bytes received so far and the total when known (at most every 100 ms, and at the end). */
  onProgress?: (received: number, total: number | null) => void;
  /** Final file name, sanitised like a server name; defaults to the reference's file name. */
  destName?: string;
  /** Replace an existing file of that name; by default a free name "x (1).png" is chosen. */
  overwrite?: boolean;
  /**
   * Hash (sha256) the bytes as they arrive and keep the first `headBytes` of them, so the caller
   * never reads the file back to learn its identity (DownloadResult.digest).
   */
  digest?: { headBytes: number };
  /**
   * More files written from the same network read (a tee): each is a fresh path the caller chose
   * (a partial name, see files/partial-files.ts), complete and fsynced when the download returns;
   * the caller publishes it. Removed when the download fails.
   */
  alsoWriteTo?: readonly string[];
  /**
   * `destDir` is a private staging folder the caller publishes from: its directory entry need not
   * be durable, so the folder is not fsynced (the file itself still is).
   */
  staging?: boolean;
}

/** A downloaded file's identity, taken while it streamed (DownloadOptions.digest). */
export interface StreamDigest {
  sha256: string;
  size: number;
  /** The first headBytes bytes (for a media probe). */
  head: Buffer;
}

export interface DownloadResult {
  /** Final path of the complete file (written under a temporary name, then renamed). */
  path: string;
  bytes: number;
  contentType: string | null;
  /** True when the bytes came from a signed storage URL (302), false when /view answered 200. */
  redirected: boolean;
  /** Present when DownloadOptions.digest asked for it. */
  digest?: StreamDigest;
}

/** What a history lookup tells about a finished (or unknown) job. */
export interface JobHistory {
  reading: JobStatusReading;
  outputs: OutputFile[];
  /** Present when the job failed. */
  error?: { exceptionType: string; exceptionMessage: string; nodeId: string | null; nodeType: string | null; traceback: string[] };
}

/** What cancel() could not do on its own. */
export interface CancelResult {
  /** Ids still running: on a server whose interrupt stops every running job, see stopJob(). */
  stillRunning: string[];
}

/** What stopJob() did. */
export type StopOutcome =
  | { kind: 'stopped'; /** Running jobs stopped with it (interrupt stops all of them on the cloud). */ stoppedRunning?: number }
  /** Nothing was stopped: interrupting would stop all `running` jobs of the account; ask the user first. */
  | { kind: 'would_stop_others'; running: number };

export interface ServiceApi {
  readonly profile: ServerProfile;
  /** What the server can do; the kind's defaults until discover() has read /api/features. */
  readonly capabilities: ServerCapabilities;
  /** Reads /api/features and refines `capabilities` (a 404 keeps the defaults). */
  discover(signal?: AbortSignal): Promise<ServerCapabilities>;
  getFeatures(signal?: AbortSignal): Promise<ServerFeatures | null>;
  /**
   * Cloud: GET /api/jobs. Local: /api/queue and the newest finished jobs of /api/history in the
   * same shape, with each job's detail (JobPage.details), which the history holds anyway.
   */
  listJobs(query?: JobListQuery, signal?: AbortSignal): Promise<JobPage>;
  /** Cloud: GET /api/jobs/{id}. Local: the queue, then /api/history/{id}. 404: ServiceError 'not_found'. */
  getJob(promptId: string, signal?: AbortSignal): Promise<JobDetail>;
  getNodeDefinitions(signal?: AbortSignal): Promise<NodeDefinitions>;
  /**
   * The definitions of these classes only (those the server has); without it, callers read the
   * whole list. A local server is asked one class at a time (service/node-definitions-of.ts).
   */
  getNodeDefinitionsOf?(classes: readonly string[], signal?: AbortSignal): Promise<NodeDefinitions>;
  uploadImage(filePath: string, options?: UploadImageOptions): Promise<UploadResult>;
  uploadMask(filePath: string, options: UploadMaskOptions): Promise<UploadResult>;
  /**
   * Sends the workflow once (transport retries only where nothing can have been sent). Adds
   * extra_data.api_key_comfy_org only when the workflow holds an api_node class and a key exists.
   * Whether a send whose answer was lost got through is jobs/submit-job.ts's decision.
   */
  submit(workflow: Workflow, options: SubmitOptions): Promise<SubmitResult>;
  /** How a request that got no answer is retried; the defaults when absent. */
  readonly retryPolicy?: RetryPolicy;
  /** Cloud: /api/job/{id}/status. Local: derived from /api/history/{id} and /api/queue. */
  getJobStatus(promptId: string, signal?: AbortSignal): Promise<JobStatusReading>;
  /** /api/history/{id}; null when the server has no history for it (yet). */
  getHistory(promptId: string, signal?: AbortSignal): Promise<JobHistory | null>;
  getQueue(signal?: AbortSignal): Promise<QueueSnapshot>;
  /** Removes waiting jobs; locally also stops running ones by id. Cloud running ids come back in stillRunning. */
  cancel(promptIds: string[]): Promise<CancelResult>;
  /** Stops one job; on the cloud a running job alongside others is stopped only with `stopOthers`. */
  stopJob(promptId: string, options?: { stopOthers?: boolean }): Promise<StopOutcome>;
  clearPending(): Promise<void>;
  /** Local with an id: that job if it runs. Otherwise (and always on the cloud): every running job. */
  interrupt(promptId?: string): Promise<void>;
  /** Downloads one output to `destDir`, named by its sanitised base name (or `destName`). */
  download(ref: FileRef, destDir: string, options?: DownloadOptions): Promise<DownloadResult>;
  /**
   * Until when the server keeps a job and its outputs (epoch ms), where it says (Comfy API v2's
   * `expires_at`); absent or null where it does not.
   */
  retentionOf?(promptId: string, signal?: AbortSignal): Promise<number | null>;
}

export type { ConnectionState };

export interface EventStream {
  /** The UUID sent as `clientId`; use it as `client_id` when submitting. */
  readonly clientId: string;
  readonly state: ConnectionState;
  /** Frames dropped because they were short, overran their length, or had an unknown type. */
  readonly droppedFrames: number;
  start(): void;
  dispose(): Promise<void>;
  /** Every validated event. Returns an unsubscribe function. */
  onEvent(listener: (event: ServerEvent) => void): () => void;
  onStateChange(listener: (state: ConnectionState) => void): () => void;
  /** Tells the socket a job is in flight, so prolonged silence counts as a fault. */
  setExpectingActivity(expecting: boolean): void;
}

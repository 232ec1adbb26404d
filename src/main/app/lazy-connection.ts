// A server connection made on first need: the app hands out its REST client and event stream at
// once (sessions, short-lived clients and the tests' factories stay synchronous), while which
// contract the server speaks is found out by connectService (service/v2/connect.ts: discovery
// without side effects; a proxy's v1 companion; a serverless deployment, v2 only). Every call
// waits for the connection and goes to the client discovery chose; `capabilities` are the real
// ones once connected, and the profile's own word until then (v2 for serverless and proxy
// profiles, the kind's defaults otherwise). A server that cannot be reached is asked again on the
// next call, and the started event stream keeps trying with a growing pause, as a socket would.
import { randomUUID } from 'node:crypto';
import type { JobDetail, JobListQuery, JobPage } from '@main/service/job-list';
import type { NodeDefinitions } from '@main/service/object-info';
import { capabilitiesFor, v2CapabilitiesFor, type ServerCapabilities, type ServerFeatures } from '@main/service/capabilities';
import type {
  ApiKeyProvider,
  CancelResult,
  ConnectionState,
  DownloadOptions,
  DownloadResult,
  EventStream,
  JobHistory,
  ServiceApi,
  StopOutcome,
  SubmitOptions,
  UploadImageOptions,
  UploadMaskOptions,
} from '@main/service/ports';
import type { RetryPolicy } from '@main/service/backoff';
import { profileConnection, type ProfileConnection } from '@main/service/profile-server';
import type { Profile } from '@main/config/settings';
import { StreamListeners } from '@main/service/stream-listeners';
import type { FileRef, JobStatusReading, QueueSnapshot, ServerEvent, ServerProfile, SubmitResult, UploadResult, Workflow } from '@main/service/types';
import { connectService, type ConnectedService } from '@main/service/v2/connect';
import { describeError } from '@shared/describe-error';

/** What a profile says about its connection beyond the address (profile-server.ts). */
export type ConnectionHints = Omit<ProfileConnection, 'server'>;

/** The hints of a settings profile (none for cloud, local and demo: discovery decides). */
export function connectionHints(profile: Profile): ConnectionHints {
  try {
    const { server: _server, ...hints } = profileConnection(profile);
    return hints;
  } catch {
    // A server API address that is not one (settings.json edited by hand): the proxy alone.
    return profile.kind === 'proxy' || profile.kind === 'serverless' ? { contract: 'v2' } : {};
  }
}

/** Pauses between attempts of a started event stream to reach a server it could not (ms). */
const RETRY_PAUSES_MS = [1000, 2000, 5000, 10_000, 30_000];

export interface LazyConnectionOptions {
  apiKey: ApiKeyProvider;
  hints?: ConnectionHints;
  log?: (line: string) => void;
  /** How a connection is made (tests count or slow it); connectService by default. */
  connect?: typeof connectService;
}

export class LazyConnection {
  readonly api: ServiceApi;
  readonly events: LazyEventStream;
  readonly clientId = randomUUID();
  #connected: ConnectedService | null = null;
  #attempt: Promise<ConnectedService> | null = null;
  #disposed = false;

  constructor(
    readonly server: ServerProfile,
    private readonly options: LazyConnectionOptions,
  ) {
    this.api = new LazyServiceApi(this);
    this.events = new LazyEventStream(this, options.log ?? (() => {}));
  }

  /** The connection when it is made (no waiting). */
  get current(): ConnectedService | null {
    return this.#connected;
  }

  /** Until the profile is connected: its own word (serverless and proxy: v2), else its kind's defaults. */
  provisionalCapabilities(): ServerCapabilities {
    return this.options.hints?.contract === 'v2'
      ? v2CapabilitiesFor({ v1Beside: Boolean(this.options.hints.v1BaseUrl), needsApiKey: false })
      : capabilitiesFor(this.server.kind);
  }

  /** The connection, made now if it is not yet (one attempt at a time; a failed one is tried again by the next call). */
  ready(): Promise<ConnectedService> {
    if (this.#connected) return Promise.resolve(this.#connected);
    if (this.#disposed) return Promise.reject(new Error('The connection was closed.'));
    this.#attempt ??= (this.options.connect ?? connectService)(this.server, {
      apiKey: this.options.apiKey,
      clientId: this.clientId,
      ...(this.options.log ? { logger: this.options.log } : {}),
      ...(this.options.hints?.contract ? { contract: this.options.hints.contract } : {}),
      ...(this.options.hints?.v1BaseUrl ? { v1BaseUrl: this.options.hints.v1BaseUrl } : {}),
    }).then(
      (connected) => {
        this.#attempt = null;
        if (this.#disposed) {
          void connected.events.dispose();
          throw new Error('The connection was closed.');
        }
        this.#connected = connected;
        this.options.log?.(`connected to ${this.server.baseUrl}: Comfy API ${connected.api.capabilities.contract}`);
        return connected;
      },
      (error: unknown) => {
        this.#attempt = null;
        throw error;
      },
    );
    return this.#attempt;
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    const connected = this.#connected ?? (this.#attempt ? await this.#attempt.catch(() => null) : null);
    await connected?.events.dispose();
  }
}

/** ServiceApi that waits for its connection, then asks the client discovery chose. */
class LazyServiceApi implements ServiceApi {
  constructor(private readonly connection: LazyConnection) {}

  get profile(): ServerProfile {
    return this.connection.server;
  }

  get capabilities(): ServerCapabilities {
    return this.connection.current?.api.capabilities ?? this.connection.provisionalCapabilities();
  }

  get retryPolicy(): RetryPolicy | undefined {
    return this.connection.current?.api.retryPolicy;
  }

  async #api(): Promise<ServiceApi> {
    return (await this.connection.ready()).api;
  }

  async discover(signal?: AbortSignal): Promise<ServerCapabilities> {
    return (await this.#api()).discover(signal);
  }
  async getFeatures(signal?: AbortSignal): Promise<ServerFeatures | null> {
    return (await this.#api()).getFeatures(signal);
  }
  async listJobs(query?: JobListQuery, signal?: AbortSignal): Promise<JobPage> {
    return (await this.#api()).listJobs(query, signal);
  }
  async getJob(promptId: string, signal?: AbortSignal): Promise<JobDetail> {
    return (await this.#api()).getJob(promptId, signal);
  }
  async getNodeDefinitions(signal?: AbortSignal): Promise<NodeDefinitions> {
    return (await this.#api()).getNodeDefinitions(signal);
  }
  async uploadImage(filePath: string, options?: UploadImageOptions): Promise<UploadResult> {
    return (await this.#api()).uploadImage(filePath, options);
  }
  async uploadMask(filePath: string, options: UploadMaskOptions): Promise<UploadResult> {
    return (await this.#api()).uploadMask(filePath, options);
  }
  async submit(workflow: Workflow, options: SubmitOptions): Promise<SubmitResult> {
    return (await this.#api()).submit(workflow, options);
  }
  async getJobStatus(promptId: string, signal?: AbortSignal): Promise<JobStatusReading> {
    return (await this.#api()).getJobStatus(promptId, signal);
  }
  async getHistory(promptId: string, signal?: AbortSignal): Promise<JobHistory | null> {
    return (await this.#api()).getHistory(promptId, signal);
  }
  async getQueue(signal?: AbortSignal): Promise<QueueSnapshot> {
    return (await this.#api()).getQueue(signal);
  }
  async cancel(promptIds: string[]): Promise<CancelResult> {
    return (await this.#api()).cancel(promptIds);
  }
  async stopJob(promptId: string, options?: { stopOthers?: boolean }): Promise<StopOutcome> {
    return (await this.#api()).stopJob(promptId, options);
  }
  async clearPending(): Promise<void> {
    return (await this.#api()).clearPending();
  }
  async interrupt(promptId?: string): Promise<void> {
    return (await this.#api()).interrupt(promptId);
  }
  async download(ref: FileRef, destDir: string, options?: DownloadOptions): Promise<DownloadResult> {
    return (await this.#api()).download(ref, destDir, options);
  }
  async retentionOf(promptId: string, signal?: AbortSignal): Promise<number | null> {
    const api = await this.#api();
    return api.retentionOf ? api.retentionOf(promptId, signal) : null;
  }
}

/**
 * The event stream of the connection: 'connecting' until it is made, then whatever the chosen
 * stream (the v1 socket, or v2's per-job streams) says, its events passed on to the listeners
 * registered here from the start.
 */
export class LazyEventStream implements EventStream {
  readonly #listeners: StreamListeners;
  #state: ConnectionState = 'connecting';
  #inner: EventStream | null = null;
  #expecting = false;
  #started = false;
  #disposed = false;
  #retry: ReturnType<typeof setTimeout> | null = null;
  #failures = 0;
  readonly #off: Array<() => void> = [];

  constructor(
    private readonly connection: LazyConnection,
    private readonly log: (line: string) => void,
  ) {
    this.#listeners = new StreamListeners(log, 'connection');
  }

  get clientId(): string {
    return this.connection.clientId;
  }

  get state(): ConnectionState {
    return this.#inner?.state ?? this.#state;
  }

  get droppedFrames(): number {
    return this.#inner?.droppedFrames ?? 0;
  }

  start(): void {
    if (this.#started || this.#disposed) return;
    this.#started = true;
    void this.#attach();
  }

  async #attach(): Promise<void> {
    let connected: ConnectedService;
    try {
      connected = await this.connection.ready();
    } catch (error) {
      if (this.#disposed) return;
      const pause = RETRY_PAUSES_MS[Math.min(this.#failures, RETRY_PAUSES_MS.length - 1)]!;
      this.#failures += 1;
      this.log(`could not reach ${this.connection.server.baseUrl} (${describeError(error)}); trying again in ${pause / 1000} s`);
      this.#setState('offline');
      this.#retry = setTimeout(() => {
        this.#retry = null;
        void this.#attach();
      }, pause);
      this.#retry.unref?.();
      return;
    }
    if (this.#disposed || this.#inner) return;
    const inner = connected.events;
    this.#inner = inner;
    this.#off.push(
      inner.onEvent((event) => this.#listeners.emit(event)),
      inner.onStateChange((state) => this.#listeners.emitState(state)),
    );
    inner.setExpectingActivity(this.#expecting);
    inner.start();
    // The chosen stream's state from now on (it may not announce the one it starts in).
    if (inner.state !== this.#state) this.#listeners.emitState(inner.state);
  }

  #setState(state: ConnectionState): void {
    if (this.#inner || state === this.#state) return;
    this.#state = state;
    this.#listeners.emitState(state);
  }

  onEvent(listener: (event: ServerEvent) => void): () => void {
    return this.#listeners.onEvent(listener);
  }

  onStateChange(listener: (state: ConnectionState) => void): () => void {
    return this.#listeners.onStateChange(listener);
  }

  setExpectingActivity(expecting: boolean): void {
    this.#expecting = expecting;
    this.#inner?.setExpectingActivity(expecting);
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    for (const off of this.#off.splice(0)) off();
    await this.connection.dispose();
    this.#state = 'closed';
    this.#inner = null;
    this.#listeners.emitState('closed');
    this.#listeners.clear();
  }
}

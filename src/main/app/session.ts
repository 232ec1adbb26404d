// One connection to the active profile's server: REST client, events socket and job tracker,
// started together and disposed together. It turns what they report into contract events
// (connection.state, job.update, job.preview through the latest-wins gate, queue.changed).
import type { ConnectionStateView, JobSnapshotView, QueueView } from '@shared/ipc/contract';
import type { JobStore } from '@main/jobs/job-store';
import { JobTracker } from '@main/jobs/tracker';
import { isTerminalPhase, type JobErrorInfo, type JobSnapshot } from '@main/jobs/types';
import type { NodeDefinitions } from '@main/service/object-info';
import type { ApiKeyProvider, EventStream, ServiceApi } from '@main/service/ports';
import type { ConnectionState, QueueSnapshot, ServerProfile } from '@main/service/types';
import type { ServerCapabilities } from '@main/service/capabilities';
import type { PreviewGate } from './preview-gate';
import { JobUpdateGate } from './job-update-gate';
import { describeError } from '@shared/describe-error';

/** Builds the REST client and the events socket for a server (swappable in tests). */
export type ConnectFactory = (server: ServerProfile, apiKey: ApiKeyProvider) => { api: ServiceApi; events: EventStream };

export interface SessionOutputs {
  connection(state: ConnectionStateView): void;
  job(snapshot: JobSnapshotView): void;
  /** A job reached its end (the outputs library records its files). */
  jobEnded?(snapshot: JobSnapshot): void;
  queue(queue: QueueView): void;
  warn(message: string): void;
}

export interface SessionOptions {
  profileId: string;
  server: ServerProfile;
  apiKey: ApiKeyProvider;
  connect: ConnectFactory;
  jobs: JobStore;
  previews: PreviewGate;
  outputs: SessionOutputs;
  now: () => number;
  pollIntervalMs?: number;
  /** How often a running job's progress may reach the renderer (JobUpdateGate); default 250 ms. */
  progressIntervalMs?: number;
}

export function connectionView(profileId: string | null, state: ConnectionState): ConnectionStateView {
  switch (state) {
    case 'connecting':
      return { profileId, state: 'connecting', message: null };
    case 'connected':
      return { profileId, state: 'connected', message: null };
    case 'reconnecting':
      return { profileId, state: 'reconnecting', message: 'The live connection dropped; reconnecting. Jobs are checked by polling meanwhile.' };
    case 'silent':
      return { profileId, state: 'polling', message: 'The live connection went quiet; jobs are checked by polling.' };
    case 'offline':
    case 'closed':
      return { profileId, state: 'offline', message: 'The server cannot be reached.' };
  }
}

export function queueView(queue: QueueSnapshot): QueueView {
  return {
    running: queue.running.map((e) => ({ promptId: e.promptId, number: e.number })),
    pending: queue.pending.map((e) => ({ promptId: e.promptId, number: e.number })),
  };
}

export function jobView(snapshot: JobSnapshot, profileId: string | null, now: number): JobSnapshotView {
  const current = snapshot.currentNode ? snapshot.nodes[snapshot.currentNode] : undefined;
  const texts = Object.values(snapshot.progressText);
  return {
    promptId: snapshot.promptId,
    profileId,
    label: snapshot.workflowName ?? 'workflow',
    origin: snapshot.origin ?? null,
    phase: snapshot.phase,
    status: snapshot.rawStatus,
    submittedAt: snapshot.trackedAt,
    updatedAt: now,
    finishedAt: snapshot.endedAt,
    startedAt: snapshot.startedAt,
    currentNode: snapshot.currentNode,
    progress: current && current.max > 0 ? { value: current.value, max: current.max } : null,
    overall: snapshot.nodesTotal ? Math.min(1, snapshot.nodesDone / snapshot.nodesTotal) : null,
    nodesDone: snapshot.nodesDone,
    nodesTotal: snapshot.nodesTotal,
    progressText: texts.length > 0 ? (texts[texts.length - 1] ?? null) : null,
    outputs: snapshot.outputs.map((o) => ({ filename: o.filename, subfolder: o.subfolder, type: o.type, node: o.node, key: o.key })),
    error: snapshot.error ? errorView(snapshot.error) : null,
    unreachable: snapshot.unreachable,
  };
}

/** A job's failure as the renderer sees it (tracebacks bounded so one huge trace cannot swamp IPC). */
export function errorView(error: JobErrorInfo): NonNullable<JobSnapshotView['error']> {
  return {
    message: error.message,
    explanation: error.explanation,
    exceptionType: error.exceptionType,
    nodeId: error.nodeId,
    nodeType: error.nodeType,
    traceback: error.traceback.slice(-500).map((line) => line.slice(0, 20_000)),
  };
}

export class ProfileSession {
  readonly profileId: string;
  readonly server: ServerProfile;
  readonly api: ServiceApi;
  readonly events: EventStream;
  readonly tracker: JobTracker;
  /** Learned from submits: true after one was accepted, false after a 429. */
  subscriptionActive: boolean | null = null;
  private definitions: NodeDefinitions | null = null;
  private definitionsLoading: Promise<NodeDefinitions> | null = null;
  /** The discovery start() asked for: the server's capabilities, or null when it could not say. */
  private discovery: Promise<ServerCapabilities | null> | null = null;
  private readonly off: Array<() => void> = [];
  private queueTimer: ReturnType<typeof setTimeout> | null = null;
  private disposed = false;
  /** Drops job.updates that change nothing on screen and spaces out progress-only ones. */
  private readonly jobUpdates: JobUpdateGate;

  constructor(private readonly options: SessionOptions) {
    this.profileId = options.profileId;
    this.server = options.server;
    const { api, events } = options.connect(options.server, options.apiKey);
    this.api = api;
    this.events = events;
    this.tracker = new JobTracker({
      api,
      events,
      jobs: options.jobs,
      profileId: options.profileId,
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    });
    const out = options.outputs;
    this.jobUpdates = new JobUpdateGate((view) => out.job(view), options.progressIntervalMs);
    this.off.push(
      events.onStateChange((state) => out.connection(connectionView(this.profileId, state))),
      this.tracker.onUpdate((snapshot) => {
        this.jobUpdates.offer(jobView(snapshot, this.profileId, options.now()));
        if (isTerminalPhase(snapshot.phase)) {
          out.jobEnded?.(snapshot);
          options.previews.end(snapshot.promptId);
          this.refreshQueueSoon();
        }
      }),
      this.tracker.onPreview((preview) => {
        // A copy: the frame may be a view into a larger socket buffer.
        options.previews.offer({ promptId: preview.promptId, nodeId: preview.nodeId, mime: preview.mime, bytes: new Uint8Array(preview.bytes) });
      }),
      this.tracker.onWarning((message) => out.warn(message)),
      events.onEvent((event) => {
        // The queue length changed on the server: tell the renderer the new queue.
        if (event.type === 'status' || event.type === 'execution_start') this.refreshQueueSoon();
      }),
    );
  }

  start(): void {
    this.options.outputs.connection(connectionView(this.profileId, 'connecting'));
    this.events.start();
    // Jobs the journal has in flight on this server are asked about and followed again.
    void this.tracker.reconcile().catch((error: unknown) => this.options.outputs.warn(`Could not reconcile jobs: ${describeError(error)}`));
    // The server's own limits (max_upload_size, max_concurrent_jobs) refine its kind's defaults;
    // without /api/features (older or local servers) the defaults stay, and nothing else waits.
    this.discovery = this.api.discover().catch(() => null);
  }

  /**
   * The server's capabilities as its discovery at start() found them, waiting at most `ms`; null
   * when it could not say in time (or start() has not run). Asked once per session, never again.
   */
  discoveredWithin(ms: number): Promise<ServerCapabilities | null> {
    return this.discovery ? within(this.discovery, ms) : Promise.resolve(null);
  }

  async nodeDefinitions(refresh = false): Promise<NodeDefinitions> {
    if (this.definitions && !refresh) return this.definitions;
    this.definitionsLoading ??= this.api.getNodeDefinitions().finally(() => {
      this.definitionsLoading = null;
    });
    this.definitions = await this.definitionsLoading;
    return this.definitions;
  }

  /**
   * The definitions, waiting at most `ms` for them to load; null when they do not come in time
   * or cannot be loaded (callers then check less, rather than making the user wait).
   */
  definitionsWithin(ms: number): Promise<NodeDefinitions | null> {
    if (this.definitions) return Promise.resolve(this.definitions);
    return within(
      this.nodeDefinitions().catch(() => null),
      ms,
    );
  }

  /** The definitions if they were loaded already (no network). */
  cachedDefinitions(): NodeDefinitions | null {
    return this.definitions;
  }

  async queue(): Promise<QueueView> {
    const view = queueView(await this.api.getQueue());
    if (!this.disposed) this.options.outputs.queue(view);
    return view;
  }

  /** Coalesces bursts of queue changes into one fetch. */
  refreshQueueSoon(): void {
    if (this.disposed || this.queueTimer) return;
    this.queueTimer = setTimeout(() => {
      this.queueTimer = null;
      void this.queue().catch(() => undefined);
    }, 150);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.queueTimer) clearTimeout(this.queueTimer);
    this.queueTimer = null;
    for (const off of this.off.splice(0)) off();
    this.jobUpdates.dispose();
    await this.tracker.dispose();
    await this.events.dispose();
  }
}

/** `answer`, or null when it has not come within `ms` (the timer does not hold the process open). */
function within<T>(answer: Promise<T | null>, ms: number): Promise<T | null> {
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), ms).unref());
  return Promise.race([answer, timeout]);
}

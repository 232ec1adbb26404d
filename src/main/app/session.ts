// One connection to the active profile's server: REST client, events socket and job tracker,
// started together and disposed together. It turns what they report into contract events
// (connection.state, job.update, job.preview through the latest-wins gate, queue.changed).
// On connect, sends an earlier process left unanswered on a Comfy API v2 server go again under
// their Idempotency-Key (jobs/submit-v2.ts) before the journal's jobs are followed again, so a
// crash between send and answer never makes a second job.
import type { ConnectionStateView, JobSnapshotView, QueueView } from '@shared/ipc/contract';
import type { JobStore } from '@main/jobs/job-store';
import { JobTracker } from '@main/jobs/tracker';
import { resendUnanswered } from '@main/jobs/submit-v2';
import { isTerminalPhase, type JobErrorInfo, type JobSnapshot } from '@main/jobs/types';
import type { NodeDefinitions } from '@main/service/object-info';
import type { ApiKeyProvider, EventStream, ServiceApi } from '@main/service/ports';
import type { ConnectionState, QueueSnapshot, ServerProfile } from '@main/service/types';
import type { ServerCapabilities } from '@main/service/capabilities';
import type { PreviewGate } from './preview-gate';
import { JobUpdateGate } from './job-update-gate';
import { describeError } from '@shared/describe-error';
import { ServiceError } from '@main/service/errors';
import type { ConnectionHints } from './lazy-connection';

/**
 * Builds the REST client and the events socket for a server (swappable in tests); `hints` is what
 * the profile says of its contract (a serverless deployment, a proxy and its server's own API).
 */
export type ConnectFactory = (server: ServerProfile, apiKey: ApiKeyProvider, hints?: ConnectionHints) => { api: ServiceApi; events: EventStream };

export interface SessionOutputs {
  connection(state: ConnectionStateView): void;
  job(snapshot: JobSnapshotView): void;
  /** A job reached its end (the outputs library records its files). */
  jobEnded?(snapshot: JobSnapshot): void;
  queue(queue: QueueView): void;
  warn(message: string): void;
  /** Discovery answered: the server's capabilities (whether it asked for a key, on v2). */
  discovered?(capabilities: ServerCapabilities): void;
}

export interface SessionOptions {
  profileId: string;
  server: ServerProfile;
  apiKey: ApiKeyProvider;
  connect: ConnectFactory;
  /** What the profile says of its connection (profile-server.ts profileConnection). */
  connection?: ConnectionHints;
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

export function jobView(snapshot: JobSnapshot, profileId: string | null, now: number, expiresAt?: number | null): JobSnapshotView {
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
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}

/** What the session knows of its own jobs, as a queue: for a server without one (v2 only). */
function ownQueue(jobs: readonly JobSnapshot[]): QueueView {
  const live = jobs.filter((j) => !isTerminalPhase(j.phase)).sort((a, b) => a.trackedAt - b.trackedAt);
  return {
    running: live.filter((j) => j.phase === 'running').map((j) => ({ promptId: j.promptId, number: null })),
    pending: live.filter((j) => j.phase !== 'running').map((j) => ({ promptId: j.promptId, number: null })),
    ownJobsOnly: true,
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
  /** Until when the server keeps each job (v2 `expires_at`), once asked; null: it does not say. */
  private readonly expiries = new Map<string, number | null>();
  /** Unanswered v2 sends still to be sent again (the server could not be reached at start). */
  private resendPending = false;
  /**
   * The journal's jobs wait to be settled: discovery could not reach the server at start, so
   * which contract it speaks (and so how its jobs are asked about) is not known yet.
   */
  private settlePending = false;

  constructor(private readonly options: SessionOptions) {
    this.profileId = options.profileId;
    this.server = options.server;
    const { api, events } = options.connection
      ? options.connect(options.server, options.apiKey, options.connection)
      : options.connect(options.server, options.apiKey);
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
      events.onStateChange((state) => {
        out.connection(connectionView(this.profileId, state));
        if (state !== 'connected') return;
        if (this.settlePending) void this.discoverAndSettle();
        else if (this.resendPending) void this.resendLeftUnanswered(true);
      }),
      this.tracker.onUpdate((snapshot) => {
        this.noteExpiry(snapshot.promptId);
        this.jobUpdates.offer(this.view(snapshot));
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
    // Which contract the server speaks (the connection is made here), and its own limits
    // (max_upload_size, max_concurrent_jobs) refining its kind's defaults; without /api/features
    // (older or local servers) the defaults stay.
    void this.discoverAndSettle();
  }

  /**
   * Discovery, then sends an earlier process left unanswered go again under their key, and the
   * jobs the journal has in flight on this server are asked about and followed again. A server
   * that cannot be reached yet is settled once its connection is up, never with the profile's
   * provisional capabilities (a plain local or cloud profile may point at a v2-only address).
   */
  private async discoverAndSettle(): Promise<void> {
    this.settlePending = false;
    let unreachable = false;
    this.discovery = this.api.discover().catch((error: unknown) => {
      unreachable = error instanceof ServiceError && error.kind === 'network';
      return null;
    });
    const found = await this.discovery;
    if (this.disposed) return;
    if (unreachable && this.events.state !== 'connected') {
      this.settlePending = true;
      return;
    }
    if (found) this.options.outputs.discovered?.(found);
    // A server that answered discovery badly is settled as before, its unanswered sends later.
    this.resendPending = found === null;
    try {
      if (found) await this.resendLeftUnanswered(false);
      await this.tracker.reconcile();
    } catch (error) {
      this.options.outputs.warn(`Could not reconcile jobs: ${describeError(error)}`);
    }
  }

  /** Sends again what an earlier process sent without an answer (v2; nothing on v1). */
  private async resendLeftUnanswered(late: boolean): Promise<void> {
    this.resendPending = false;
    const warn = (message: string): void => this.options.outputs.warn(message);
    const outcomes = await resendUnanswered({ api: this.api, jobs: this.options.jobs, clientId: this.events.clientId, profileId: this.profileId }).catch(
      (error: unknown) => {
        warn(`Could not send again what an earlier run left unanswered: ${describeError(error)}`);
        return [];
      },
    );
    for (const outcome of outcomes) {
      if (outcome.kind === 'accepted') warn(`An earlier send (key ${outcome.key}) reached the server as job ${outcome.jobId}.`);
      else if (outcome.kind === 'unanswered') this.resendPending = true;
      else warn(`An earlier send (key ${outcome.key}): ${outcome.message}`);
    }
    // At start the reconciliation that follows picks them up; later, they are followed now.
    const accepted = outcomes.flatMap((o) => (o.kind === 'accepted' ? [o.jobId] : []));
    if (late && accepted.length > 0 && !this.disposed) await this.tracker.reconcile({ only: accepted });
  }

  /** A job as the renderer sees it, with how long the server keeps it where that is known. */
  view(snapshot: JobSnapshot): JobSnapshotView {
    const expiresAt = this.expiries.get(snapshot.promptId);
    return jobView(snapshot, this.profileId, this.options.now(), expiresAt === undefined ? undefined : expiresAt);
  }

  /** Asks once per job how long the server keeps it (v2 answers from the job it has read already). */
  private noteExpiry(promptId: string): void {
    if (this.expiries.has(promptId) || !this.api.retentionOf || this.api.capabilities.contract !== 'v2') return;
    this.expiries.set(promptId, null);
    void this.api
      .retentionOf(promptId)
      .then((expiresAt) => {
        if (expiresAt === null || this.disposed) return;
        this.expiries.set(promptId, expiresAt);
        const snapshot = this.tracker.get(promptId);
        if (snapshot) this.jobUpdates.offer(this.view(snapshot));
      })
      .catch(() => undefined);
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
    // A server without v1 beside v2 (a serverless deployment, a bare proxy) has no queue to read:
    // the queue shown is this session's own unfinished jobs. Which it is, discovery says.
    await this.discovery;
    const view = this.api.capabilities.serverQueue ? queueView(await this.api.getQueue()) : ownQueue(this.tracker.list());
    if (!this.disposed) this.options.outputs.queue(view);
    return view;
  }

  /**
   * Removes the waiting jobs: the server's queue; on a server without one (v2 only), this
   * session's own waiting jobs, each cancelled by itself.
   */
  async clearPending(): Promise<void> {
    await this.discovery;
    if (this.api.capabilities.serverQueue) return this.api.clearPending();
    const pending = ownQueue(this.tracker.list()).pending.map((e) => e.promptId);
    if (pending.length === 0) return;
    await this.api.cancel(pending);
    for (const promptId of pending) this.tracker.noteCancelRequested(promptId);
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

// What the v2 surface keeps per job on top of the demo's queue: who submitted it under which
// Idempotency-Key, the graph it ran, its output assets, the latest progress snapshot and preview,
// its failure, and the event streams following it. It watches every job's events (a HubObserver)
// and turns them into v2's status, progress, preview and output events.
import { collectNodeOutputs } from '@main/service/outputs';
import type { JsonObject } from '@shared/json';
import type { HubObserver, JobAudience } from '../events-hub';
import { contentTypeFor, isFileArea } from '../files';
import type { Job, JobQueue } from '../queue';
import type { AssetRecord, AssetStore } from './assets';

export type V2Status = 'queued' | 'running' | 'canceling' | 'succeeded' | 'failed' | 'canceled' | 'expired';
const TERMINAL: readonly V2Status[] = ['succeeded', 'failed', 'canceled', 'expired'];
/** Progress events are throttled, as the service's (about 2 a second). */
const PROGRESS_INTERVAL_MS = 400;

export interface V2Progress {
  value: number;
  nodes_done: number;
  nodes_total: number;
  current_node: string | null;
  current_node_class: string | null;
  step: number | null;
  steps: number | null;
  message: string | null;
}

export type StreamSink = (event: string, data: unknown) => void;

export interface V2JobMeta {
  id: string;
  owner: string | null;
  metadata: string | null;
  workflow: JsonObject;
  outputs: AssetRecord[];
  progress: V2Progress | null;
  preview: { node_id: string; content_type: string; data_base64: string } | null;
  error: { code: string; message: string; node_id: string | null; class_type: string | null; traceback: null } | null;
  cancelRequested: boolean;
  streams: Set<{ send: StreamSink; end: () => void }>;
  lastStatus: V2Status | null;
  lastProgressAt: number;
  finished: Set<string>;
}

export function isTerminalV2(status: V2Status): boolean {
  return TERMINAL.includes(status);
}

function classOf(job: Job, nodeId: string | null): string | null {
  if (nodeId === null) return null;
  const node = job.prompt[nodeId] as { class_type?: unknown } | undefined;
  return typeof node?.class_type === 'string' ? node.class_type : null;
}

export class V2Jobs implements HubObserver {
  private readonly metas = new Map<string, V2JobMeta>();

  /**
   * `formatOutput`: an output asset as the wire's Output object (links depend on the surface),
   * the same object job.outputs[] holds.
   */
  constructor(
    private readonly queue: JobQueue,
    private readonly assets: AssetStore,
    private readonly formatOutput: (record: AssetRecord) => unknown,
    /** The self-hosted proxy's ways: no `running` event on the stream, output ids that are tokens. */
    private readonly quirks: { silentRunning: boolean; outputId?: () => string } = { silentRunning: false },
  ) {}

  add(
    meta: Omit<V2JobMeta, 'outputs' | 'progress' | 'preview' | 'error' | 'cancelRequested' | 'streams' | 'lastStatus' | 'lastProgressAt' | 'finished'>,
  ): V2JobMeta {
    const full: V2JobMeta = {
      ...meta,
      outputs: [],
      progress: null,
      preview: null,
      error: null,
      cancelRequested: false,
      streams: new Set(),
      lastStatus: null,
      lastProgressAt: 0,
      finished: new Set(),
    };
    this.metas.set(meta.id, full);
    return full;
  }

  get(id: string, owner: string | null): { meta: V2JobMeta; job: Job } | undefined {
    const meta = this.metas.get(id);
    const job = this.queue.get(id);
    return meta && job && meta.owner === owner ? { meta, job } : undefined;
  }

  /** The caller's jobs, newest first. */
  list(owner: string | null): Array<{ meta: V2JobMeta; job: Job }> {
    const found: Array<{ meta: V2JobMeta; job: Job }> = [];
    for (const meta of this.metas.values()) {
      const job = this.queue.get(meta.id);
      if (job && meta.owner === owner) found.push({ meta, job });
    }
    return found.reverse();
  }

  statusOf(meta: V2JobMeta, job: Job): V2Status {
    switch (job.state) {
      case 'pending':
        return 'queued';
      case 'running':
        return meta.cancelRequested ? 'canceling' : 'running';
      case 'success':
        return 'succeeded';
      case 'error':
        return 'failed';
      case 'cancelled':
        return 'canceled';
    }
  }

  /** 1-based place among the waiting jobs, null when not waiting. */
  queuePosition(job: Job): number | null {
    const index = this.queue.pendingJobs().indexOf(job);
    return index < 0 ? null : index + 1;
  }

  get wantsPreviews(): boolean {
    for (const meta of this.metas.values()) if (meta.streams.size > 0) return true;
    return false;
  }

  /** Sends `event` to the job's open streams; a terminal status ends them. */
  private broadcast(meta: V2JobMeta, event: string, data: unknown): void {
    for (const stream of meta.streams) stream.send(event, data);
  }

  onStatus(): void {
    for (const meta of this.metas.values()) {
      const job = this.queue.get(meta.id);
      if (!job) continue;
      const status = this.statusOf(meta, job);
      const position = this.queuePosition(job);
      if (status === meta.lastStatus && status !== 'queued') continue;
      meta.lastStatus = status;
      if (meta.streams.size === 0) continue;
      // The real proxy sends `status` on connect and at the end only.
      if (this.quirks.silentRunning && !isTerminalV2(status)) continue;
      this.broadcast(meta, 'status', { status, queue_position: position });
      if (isTerminalV2(status)) {
        for (const stream of [...meta.streams]) stream.end();
        meta.streams.clear();
      }
    }
  }

  onJobEvent(audience: JobAudience, type: string, data: unknown): void {
    const meta = this.metas.get(audience.promptId);
    const job = this.queue.get(audience.promptId);
    if (!meta || !job || typeof data !== 'object' || data === null) return;
    const d = data as Record<string, unknown>;
    const progress = meta.progress ?? {
      value: 0,
      nodes_done: 0,
      nodes_total: Object.keys(job.prompt).length,
      current_node: null,
      current_node_class: null,
      step: null,
      steps: null,
      message: null,
    };
    meta.progress = progress;
    if (type === 'execution_cached' && Array.isArray(d.nodes)) {
      for (const id of d.nodes) if (typeof id === 'string') meta.finished.add(id);
    } else if (type === 'executing' && typeof d.node === 'string') {
      progress.current_node = d.node;
      progress.current_node_class = classOf(job, d.node);
      progress.step = progress.steps = null;
    } else if (type === 'progress' && typeof d.value === 'number' && typeof d.max === 'number') {
      progress.step = d.value;
      progress.steps = d.max;
    } else if (type === 'progress_state' && typeof d.nodes === 'object' && d.nodes !== null) {
      for (const [id, node] of Object.entries(d.nodes as Record<string, { state?: unknown }>)) if (node.state === 'finished') meta.finished.add(id);
    } else if (type === 'executed') {
      this.addOutputs(meta, job, typeof d.node === 'string' ? d.node : '', d.output);
      return;
    } else if (type === 'execution_error') {
      const nodeId = typeof d.node_id === 'string' ? d.node_id : null;
      meta.error = {
        code: 'node_execution_error',
        message: typeof d.exception_message === 'string' ? d.exception_message.trim() : 'The job failed.',
        node_id: nodeId,
        class_type: classOf(job, nodeId),
        traceback: null,
      };
      return;
    } else {
      return;
    }
    progress.nodes_done = meta.finished.size;
    const stepShare = progress.step !== null && progress.steps ? progress.step / progress.steps : 0;
    progress.value = Math.min(
      1,
      (progress.nodes_done + (progress.current_node && !meta.finished.has(progress.current_node) ? stepShare : 0)) / Math.max(1, progress.nodes_total),
    );
    progress.message = progress.current_node_class && progress.steps ? `${progress.current_node_class} ${progress.step}/${progress.steps}` : null;
    const now = Date.now();
    if (now - meta.lastProgressAt >= PROGRESS_INTERVAL_MS || progress.nodes_done === progress.nodes_total) {
      meta.lastProgressAt = now;
      this.broadcast(meta, 'progress', { ...progress });
    }
  }

  onPreview(audience: JobAudience, nodeId: string, jpeg: Uint8Array): void {
    const meta = this.metas.get(audience.promptId);
    if (!meta) return;
    meta.preview = { node_id: nodeId, content_type: 'image/jpeg', data_base64: Buffer.from(jpeg).toString('base64') };
    this.broadcast(meta, 'preview', meta.preview);
  }

  /** Output assets of a node's files, each announced once on the job's streams. */
  private addOutputs(meta: V2JobMeta, job: Job, nodeId: string, output: unknown): void {
    for (const file of collectNodeOutputs(nodeId, output)) {
      if (!isFileArea(file.type)) continue;
      if (meta.outputs.some((o) => o.filename === file.filename && o.subfolder === file.subfolder && o.area === file.type)) continue;
      const record = this.assets.add(
        {
          owner: meta.owner,
          hash: null,
          sizeBytes: 0,
          contentType: contentTypeFor(file.filename),
          filePath: file.filename,
          area: file.type,
          filename: file.filename,
          subfolder: file.subfolder,
          expiresAt: null,
          jobId: job.promptId,
          nodeId,
        },
        this.quirks.outputId?.(),
      );
      meta.outputs.push(record);
      this.broadcast(meta, 'output', this.formatOutput(record));
    }
  }
}

// The v2 surface's state and its views: the asset and job stores, the Idempotency-Key book, the
// fault switches and counters, and how a record looks on the wire (links included: on the cloud
// a signed storage URL, on a v2-only deployment the surface's own content link, as the
// self-hosted proxy serves it).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DemoCore } from '../core';
import { AssetStore, type AssetRecord } from './assets';
import { V2FaultState } from './faults';
import { isTerminalV2, V2Jobs, type V2JobMeta } from './jobs-state';
import type { Job } from '../queue';
import { createV2Stats, type V2Mode, type V2Stats } from './types';

const DAY_MS = 24 * 60 * 60 * 1000;
const LINK_TTL_MS = DAY_MS;

export class V2Surface {
  readonly assets = new AssetStore();
  readonly jobs: V2Jobs;
  readonly faults = new V2FaultState();
  readonly stats: V2Stats = createV2Stats();
  /** Claimed Idempotency-Keys, per account (single use: never replayed). */
  private readonly claimed = new Map<string | null, Set<string>>();
  /** Open event streams per account (the service allows 8). */
  readonly openStreams = new Map<string | null, number>();

  constructor(
    readonly core: DemoCore,
    readonly mode: V2Mode,
    /** v2-only: the bearer token a deployment requires (null: a proxy without a token). */
    readonly token: string | null,
    /** Answer as the real self-hosted proxy does (types.ts v2ProxyQuirks). */
    readonly proxyQuirks = false,
  ) {
    this.jobs = new V2Jobs(core.queue, this.assets, (record) => this.outputJson(record, this.lastOrigin), {
      silentRunning: proxyQuirks,
      ...(proxyQuirks ? { outputId: () => `${randomBytes(12).toString('base64url')}.${randomBytes(24).toString('base64url')}` } : {}),
    });
  }

  /** Origin of the latest request, for links inside events (streams have no request of their own). */
  lastOrigin = '';

  originOf(req: IncomingMessage): string {
    this.lastOrigin = `http://${req.headers.host ?? '127.0.0.1'}`;
    return this.lastOrigin;
  }

  isClaimed(owner: string | null, key: string): boolean {
    return this.claimed.get(owner)?.has(key) ?? false;
  }

  /** A submission that definitely failed without a job gives its key back. */
  release(owner: string | null, key: string): void {
    this.claimed.get(owner)?.delete(key);
  }

  claim(owner: string | null, key: string): void {
    let keys = this.claimed.get(owner);
    if (!keys) this.claimed.set(owner, (keys = new Set()));
    keys.add(key);
  }

  /** A short-lived link to an asset's bytes: signed storage (cloud), or the surface's content route. */
  private link(record: AssetRecord, origin: string): { url: string; url_expires_at: string } {
    const expires = new Date(Date.now() + LINK_TTL_MS).toISOString();
    if (this.mode === 'beside' && record.subfolder === '') {
      return { url: this.core.storageUrl() + this.core.signer.sign({ area: record.area, filename: record.filename }), url_expires_at: expires };
    }
    return { url: `${origin}/api/v2/assets/${encodeURIComponent(record.id)}/content`, url_expires_at: expires };
  }

  assetJson(record: AssetRecord, origin: string, createdNew?: boolean): Record<string, unknown> {
    return {
      id: record.id,
      hash: record.hash,
      size_bytes: record.sizeBytes,
      content_type: record.contentType,
      file_path: record.filePath,
      created_at: new Date(record.createdAt).toISOString(),
      ...this.link(record, origin),
      expires_at: record.expiresAt === null ? null : new Date(record.expiresAt).toISOString(),
      job_id: record.jobId,
      ...(createdNew === undefined ? {} : { created_new: createdNew }),
    };
  }

  outputJson(record: AssetRecord, origin: string): Record<string, unknown> {
    const type = record.contentType.startsWith('image/')
      ? 'image'
      : record.contentType.startsWith('video/')
        ? 'video'
        : record.contentType.startsWith('audio/')
          ? 'audio'
          : 'file';
    return {
      node_id: record.nodeId ?? '',
      name: record.filename,
      type,
      content_type: record.contentType,
      size_bytes: record.sizeBytes,
      id: record.id,
      hash: record.hash,
      ...this.link(record, origin),
      job_id: record.jobId,
    };
  }

  jobJson(meta: V2JobMeta, job: Job, origin: string): Record<string, unknown> {
    const status = this.jobs.statusOf(meta, job);
    const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());
    // Links: host-relative on the cloud (clients resolve them against the request's origin),
    // absolute on a v2-only deployment, as the self-hosted proxy writes them.
    const base = this.mode === 'beside' ? '' : origin;
    const self = `${base}/api/v2/jobs/${encodeURIComponent(meta.id)}`;
    const quirks = this.proxyQuirks;
    const outputs = quirks && !isTerminalV2(status) ? [] : meta.outputs.map((o) => this.outputJson(o, origin));
    const progress = quirks ? (status === 'running' ? { value: 0, nodes_done: 0, nodes_total: 0 } : null) : meta.progress ? { ...meta.progress } : null;
    return {
      id: meta.id,
      status,
      created_at: new Date(job.createdAt).toISOString(),
      started_at: quirks ? null : iso(job.startedAt),
      completed_at: !quirks && isTerminalV2(status) ? iso(job.endedAt ?? job.updatedAt) : null,
      expires_at: new Date(job.createdAt + DAY_MS).toISOString(),
      queue_position: this.jobs.queuePosition(job),
      progress,
      outputs,
      error:
        status === 'failed'
          ? (meta.error ?? { code: 'node_execution_error', message: job.errorMessage ?? 'The job failed.', node_id: null, class_type: null, traceback: null })
          : null,
      metrics: {
        queue_ms: job.startedAt === undefined ? null : job.startedAt - job.createdAt,
        execution_ms: job.startedAt === undefined || job.endedAt === undefined ? null : job.endedAt - job.startedAt,
      },
      urls: { self, events: `${self}/events`, cancel: `${self}/cancel` },
      ...(meta.metadata !== null ? { metadata: meta.metadata } : {}),
    };
  }
}

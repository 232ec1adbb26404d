// The /ws connections and who receives which frame.
// Local (as the real server): sockets are keyed by clientId (a newer socket with the same id takes
// the key over); a job's execution events go only to the socket whose clientId equals the job's
// client_id (nobody when it was posted without one); progress, progress_state and previews go to
// that socket, or to every socket for a job without client_id (previews then always type 1);
// TEXT frames and `status` go to everyone.
// Cloud: clientId is ignored; every socket of the job owner's key receives all of the job's frames.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import { stringifyJsonExact } from '@shared/json';
import type { FaultState } from './faults';
import { encodePreviewImage, encodePreviewWithMetadata, encodeText, IMAGE_FORMAT_JPEG } from './frames-encode';
import { pyJsonDumps } from './py-json';
import type { DemoFlavour } from './types';

interface Connection {
  ws: WebSocket;
  sid: string;
  /** The account key the socket authenticated with (cloud), null locally. */
  key: string | null;
  previewMetadata: boolean;
  sawFirstMessage: boolean;
}

/** Who a job's frames are for. */
export interface JobAudience {
  promptId: string;
  clientId: string | null;
  owner: string | null;
}

/**
 * Another listener to every job's events besides the sockets: the v2 surface (v2/progress.ts),
 * which turns them into job progress, previews and outputs. `wantsPreviews`: whether someone
 * would see a preview now (otherwise the JPEG is never encoded, as with no socket attached).
 */
export interface HubObserver {
  onJobEvent(job: JobAudience, type: string, data: unknown): void;
  onPreview(job: JobAudience, nodeId: string, jpeg: Uint8Array): void;
  onStatus(): void;
  readonly wantsPreviews: boolean;
}

export interface ServerFeatureFlags {
  supports_preview_metadata: boolean;
  max_upload_size: number;
}

export class EventsHub {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly connections = new Set<Connection>();
  /** Local routing table: the latest socket per clientId. */
  private readonly bySid = new Map<string, Connection>();
  private readonly flavour: DemoFlavour;
  private readonly faults: FaultState;
  private readonly queueRemaining: (owner: string | null) => number;
  private readonly featureFlags: ServerFeatureFlags;
  private readonly runningNode: () => { clientId: string | null; nodeId: string } | null;
  private observer: HubObserver | null = null;

  constructor(options: {
    flavour: DemoFlavour;
    faults: FaultState;
    queueRemaining: (owner: string | null) => number;
    featureFlags: ServerFeatureFlags;
    /** The running job's client and current node, for the local server's reconnect message. */
    runningNode: () => { clientId: string | null; nodeId: string } | null;
  }) {
    this.flavour = options.flavour;
    this.faults = options.faults;
    this.queueRemaining = options.queueRemaining;
    this.featureFlags = options.featureFlags;
    this.runningNode = options.runningNode;
  }

  /** Sockets, plus one for an observer that wants previews (a JPEG is encoded only when someone sees it). */
  get connectionCount(): number {
    return this.connections.size + (this.observer?.wantsPreviews ? 1 : 0);
  }

  setObserver(observer: HubObserver | null): void {
    this.observer = observer;
  }

  /** Completes an authorised upgrade and greets the socket with the queue status and its sid. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, sid: string, key: string | null): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.attach(ws, sid, key));
  }

  private attach(ws: WebSocket, sid: string, key: string | null): void {
    const conn: Connection = { ws, sid, key, previewMetadata: false, sawFirstMessage: false };
    this.connections.add(conn);
    if (this.flavour === 'local') this.bySid.set(sid, conn);
    ws.on('message', (data, isBinary) => this.onMessage(conn, data, isBinary));
    ws.on('close', () => this.detach(conn));
    ws.on('error', () => this.detach(conn));
    this.sendJson(conn, 'status', { status: { exec_info: { queue_remaining: this.queueRemaining(key) } }, sid });
    // The local server tells a reconnecting client which node of its job runs now, as
    // {node} alone (no prompt_id): clients must accept that shape.
    const running = this.flavour === 'local' ? this.runningNode() : null;
    if (running && running.clientId === sid) this.sendJson(conn, 'executing', { node: running.nodeId });
  }

  private detach(conn: Connection): void {
    this.connections.delete(conn);
    if (this.bySid.get(conn.sid) === conn) this.bySid.delete(conn.sid);
  }

  private onMessage(conn: Connection, data: WebSocket.RawData, isBinary: boolean): void {
    const first = !conn.sawFirstMessage;
    conn.sawFirstMessage = true;
    if (isBinary || !first) return;
    let message: unknown;
    try {
      message = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'));
    } catch {
      return;
    }
    // Only a first message can announce features, as on the real server.
    if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== 'feature_flags') return;
    const flags = (message as { data?: unknown }).data;
    conn.previewMetadata = typeof flags === 'object' && flags !== null && (flags as Record<string, unknown>).supports_preview_metadata === true;
    this.sendJson(conn, 'feature_flags', { ...this.featureFlags });
  }

  // ---- sending ----

  private deliver(conn: Connection, frame: string | Buffer): void {
    // The silence fault: frames are lost, the socket stays open.
    if (this.faults.isSilent()) return;
    if (conn.ws.readyState === WebSocket.OPEN) conn.ws.send(frame);
  }

  private encodeMessage(type: string, data: unknown): string {
    const message = { type, data };
    return this.flavour === 'local' ? pyJsonDumps(message) : stringifyJsonExact(message);
  }

  private sendJson(conn: Connection, type: string, data: unknown): void {
    this.deliver(conn, this.encodeMessage(type, data));
  }

  /** Local broadcast targets are the routing table (one socket per clientId); cloud, every socket. */
  private everyone(): Connection[] {
    return this.flavour === 'local' ? [...this.bySid.values()] : [...this.connections];
  }

  private ownerSockets(owner: string | null): Connection[] {
    return [...this.connections].filter((c) => c.key === owner);
  }

  /** Execution events: local, only the job's client; cloud, the owner's sockets. */
  private jobTargets(job: JobAudience): Connection[] {
    if (this.flavour === 'cloud') return this.ownerSockets(job.owner);
    if (job.clientId === null) return [];
    const conn = this.bySid.get(job.clientId);
    return conn ? [conn] : [];
  }

  /** Progress and previews: like job events, but everyone locally when the job has no client. */
  private progressTargets(job: JobAudience): Connection[] {
    if (this.flavour === 'local' && job.clientId === null) return this.everyone();
    return this.jobTargets(job);
  }

  /** `status` to every socket, each with the queue it can see. */
  sendStatus(): void {
    this.observer?.onStatus();
    for (const conn of this.everyone()) {
      this.sendJson(conn, 'status', { status: { exec_info: { queue_remaining: this.queueRemaining(conn.key) } } });
    }
  }

  /** execution_start, execution_cached, executing, executed, execution_success/error/interrupted. */
  sendJobEvent(job: JobAudience, type: string, data: unknown): void {
    this.observer?.onJobEvent(job, type, data);
    const frame = this.encodeMessage(type, data);
    for (const conn of this.jobTargets(job)) this.deliver(conn, frame);
  }

  /** progress and progress_state. */
  sendProgressEvent(job: JobAudience, type: string, data: unknown): void {
    this.observer?.onJobEvent(job, type, data);
    const frame = this.encodeMessage(type, data);
    for (const conn of this.progressTargets(job)) this.deliver(conn, frame);
  }

  /**
   * A JPEG preview. The real server sends the type 4 frame before `progress` and the type 1 frame
   * after it, so the caller sends the two kinds separately: `withMetadata` true sends type 4 to
   * sockets that announced support, false sends type 1 to the others.
   */
  sendPreview(job: JobAudience, nodeId: string, jpeg: Uint8Array, withMetadata: boolean): void {
    if (!withMetadata) this.observer?.onPreview(job, nodeId, jpeg);
    const noClient = this.flavour === 'local' && job.clientId === null;
    for (const conn of this.progressTargets(job)) {
      const wantsMetadata = conn.previewMetadata && !noClient;
      if (wantsMetadata !== withMetadata) continue;
      if (withMetadata) {
        const meta: Record<string, unknown> = {
          node_id: nodeId,
          prompt_id: job.promptId,
          display_node_id: nodeId,
          parent_node_id: null,
          real_node_id: nodeId,
        };
        // The cloud leaves image_type out: clients must sniff the image's magic bytes.
        if (this.flavour === 'local') meta.image_type = 'image/jpeg';
        const metaJson = this.flavour === 'local' ? pyJsonDumps(meta) : JSON.stringify(meta);
        this.deliver(conn, encodePreviewWithMetadata(metaJson, jpeg));
      } else {
        this.deliver(conn, encodePreviewImage(IMAGE_FORMAT_JPEG, jpeg));
      }
    }
  }

  /** TEXT frames: everyone locally (nodes send them without a target), the owner on the cloud. */
  sendText(job: JobAudience, nodeId: string, text: string): void {
    const frame = encodeText(nodeId, text);
    const targets = this.flavour === 'local' ? this.everyone() : this.ownerSockets(job.owner);
    for (const conn of targets) this.deliver(conn, frame);
  }

  /** Raw frames (the malformed-frames fault) to whoever gets the job's previews. */
  sendRaw(job: JobAudience, frames: Buffer[]): void {
    for (const conn of this.progressTargets(job)) for (const frame of frames) this.deliver(conn, frame);
  }

  /** The socket-drop fault: every socket goes away at once, without a closing handshake. */
  dropAll(): void {
    for (const conn of [...this.connections]) {
      conn.ws.terminate();
      this.detach(conn);
    }
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}

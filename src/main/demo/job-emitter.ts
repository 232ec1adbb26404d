// The frames one job sends while it runs, in the real server's order. Per progress step the
// server sends progress_state, then a type 4 preview (sockets that announced the flag), then
// `progress`, then a type 1 preview (other sockets). A node calls progress() then preview(), so
// `progress` is held back until the end of the current synchronous step (a microtask) or until
// the next frame, whichever comes first, which lets the type 4 frame go before it.
import jpeg from 'jpeg-js';
import type { EventsHub, JobAudience } from './events-hub';
import type { FaultState } from './faults';
import type { RgbaImage } from './node-api';

interface NodeProgressState {
  value: number;
  max: number;
  state: 'running' | 'finished' | 'error';
}

export const PREVIEW_JPEG_QUALITY = 80;

export class JobEmitter {
  private pendingProgress: { value: number; max: number; node: string } | null = null;
  private readonly registry = new Map<string, NodeProgressState>();
  /** Progress steps reported so far in this job (the socket-drop fault counts them). */
  private steps = 0;

  constructor(
    private readonly hub: EventsHub,
    private readonly job: JobAudience,
    private readonly faults: FaultState,
  ) {}

  flush(): void {
    const p = this.pendingProgress;
    if (!p) return;
    this.pendingProgress = null;
    this.hub.sendProgressEvent(this.job, 'progress', { value: p.value, max: p.max, prompt_id: this.job.promptId, node: p.node });
  }

  jobEvent(type: string, data: unknown): void {
    this.flush();
    this.hub.sendJobEvent(this.job, type, data);
  }

  private sendProgressState(): void {
    const nodes: Record<string, unknown> = {};
    for (const [id, s] of this.registry) {
      nodes[id] = {
        value: s.value,
        max: s.max,
        state: s.state,
        node_id: id,
        prompt_id: this.job.promptId,
        display_node_id: id,
        parent_node_id: null,
        real_node_id: id,
      };
    }
    this.hub.sendProgressEvent(this.job, 'progress_state', { prompt_id: this.job.promptId, nodes });
  }

  nodeStarted(nodeId: string): void {
    this.flush();
    this.registry.set(nodeId, { value: 0, max: 1, state: 'running' });
    this.sendProgressState();
  }

  /** A node finished (or a cached output node was replayed): its progress becomes max/max. */
  nodeFinished(nodeId: string): void {
    this.flush();
    const s = this.registry.get(nodeId) ?? { value: 1, max: 1, state: 'finished' as const };
    this.registry.set(nodeId, { value: s.max, max: s.max, state: 'finished' });
    this.sendProgressState();
  }

  progress(nodeId: string, value: number, max: number): void {
    this.flush();
    this.steps += 1;
    if (this.faults.takeSocketDrop(this.steps)) this.hub.dropAll();
    this.registry.set(nodeId, { value, max, state: 'running' });
    this.sendProgressState();
    this.pendingProgress = { value, max, node: nodeId };
    queueMicrotask(() => this.flush());
  }

  preview(nodeId: string, image: RgbaImage): void {
    const { width, height, data } = image;
    if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0 || data.length !== width * height * 4) {
      throw new Error(`preview image must be RGBA with width*height*4 bytes (got ${width}x${height}, ${data.length} bytes)`);
    }
    // Nobody would see it: skip the encoding (benchmarks run jobs with no socket attached).
    if (this.hub.connectionCount === 0) return;
    const bytes = jpeg.encode({ width, height, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) }, PREVIEW_JPEG_QUALITY).data;
    this.hub.sendPreview(this.job, nodeId, bytes, true);
    this.flush();
    this.hub.sendPreview(this.job, nodeId, bytes, false);
  }

  text(nodeId: string, message: string): void {
    this.flush();
    this.hub.sendText(this.job, nodeId, message);
  }

  raw(frames: Buffer[]): void {
    this.flush();
    this.hub.sendRaw(this.job, frames);
  }
}

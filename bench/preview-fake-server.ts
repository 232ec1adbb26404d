// A stand-in server for bench/preview-pipeline.ts: implements the service ports (ServiceApi,
// EventStream) so the real app core (tracker, preview gate, harness transport) runs unchanged,
// while the bench decides exactly when each preview frame "arrives from the socket". Each frame
// is a real 512x512 JPEG carrying its frame number in a COM segment, so the bench can tell which
// offered frame a delivered `seq` was.
import { randomUUID } from 'node:crypto';
import jpeg from 'jpeg-js';
import { parseNodeDefinitions, type NodeDefinitions } from '@main/service/object-info';
import type { DownloadResult, EventStream, JobHistory, ServiceApi } from '@main/service/ports';
import type { ConnectionState, JobStatusReading, QueueSnapshot, ServerEvent, ServerProfile, SubmitResult, UploadResult } from '@main/service/types';
import { capabilitiesFor } from '@main/service/capabilities';

const DEFINITIONS = JSON.stringify({
  BenchSampler: {
    input: { required: { frames: ['INT', { default: 100, min: 1, max: 1000000 }] } },
    input_order: { required: ['frames'] },
    output: ['IMAGE'],
    output_name: ['IMAGE'],
    output_is_list: [false],
    name: 'BenchSampler',
    display_name: 'Bench Sampler',
    description: 'Sends preview frames at a fixed rate (benchmark only).',
    category: 'bench',
    output_node: true,
  },
});

/** Picture number `k` of the benchmarks' previews: a size x size RGBA gradient. */
export function gradientRgba(k: number, size = 512): Buffer {
  const data = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      const i = (y * size + x) * 4;
      data[i] = (x + k * 16) & 0xff;
      data[i + 1] = (y * 2 + k * 8) & 0xff;
      data[i + 2] = ((x ^ y) + k * 32) & 0xff;
      data[i + 3] = 255;
    }
  }
  return data;
}

/** A few distinct 512x512 JPEG pictures (gradients), encoded once. */
export function makeJpegs(count: number, size = 512): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let k = 0; k < count; k += 1) out.push(new Uint8Array(jpeg.encode({ data: gradientRgba(k, size), width: size, height: size }, 80).data));
  return out;
}

/** The JPEG with a COM segment "fd-bench:<n>" right after its SOI marker. */
export function tagFrame(picture: Uint8Array, n: number): Uint8Array {
  const text = Buffer.from(`fd-bench:${n}`, 'latin1');
  const out = new Uint8Array(picture.length + 4 + text.length);
  out.set(picture.subarray(0, 2), 0);
  out.set([0xff, 0xfe, ((text.length + 2) >> 8) & 0xff, (text.length + 2) & 0xff], 2);
  out.set(text, 6);
  out.set(picture.subarray(2), 6 + text.length);
  return out;
}

/** Reads the frame number back from a tagged JPEG; null when it carries none. */
export function frameNumber(bytes: Uint8Array): number | null {
  if (bytes[2] !== 0xff || bytes[3] !== 0xfe) return null;
  const length = ((bytes[4] ?? 0) << 8) | (bytes[5] ?? 0);
  const match = /^fd-bench:(\d+)$/.exec(Buffer.from(bytes.subarray(6, 4 + length)).toString('latin1'));
  return match ? Number(match[1]) : null;
}

type Phase = 'pending' | 'running' | 'succeeded';

/** The fake server: one shared state behind the REST port and the events port. */
export class FakePreviewServer {
  readonly profile: ServerProfile;
  readonly #jobs = new Map<string, Phase>();
  readonly #eventListeners = new Set<(event: ServerEvent) => void>();
  readonly #stateListeners = new Set<(state: ConnectionState) => void>();
  #submitted: ((promptId: string) => void) | null = null;
  #number = 0;

  readonly api: ServiceApi;

  constructor(baseUrl: string) {
    this.profile = { kind: 'cloud', baseUrl };
    this.api = this.#makeApi();
  }

  /** Resolves with the prompt id of the next submitted job. */
  nextSubmit(): Promise<string> {
    return new Promise((resolve) => (this.#submitted = resolve));
  }

  emit(event: ServerEvent): void {
    for (const listener of [...this.#eventListeners]) listener(event);
  }

  start(promptId: string): void {
    this.#jobs.set(promptId, 'running');
    this.emit({ type: 'execution_start', promptId });
    this.emit({ type: 'executing', promptId, node: '1' });
  }

  preview(promptId: string, bytes: Uint8Array): void {
    this.emit({ type: 'preview', frameType: 4, promptId, nodeId: '1', displayNodeId: '1', mime: 'image/jpeg', bytes });
  }

  finish(promptId: string): void {
    this.#jobs.set(promptId, 'succeeded');
    this.emit({ type: 'executed', promptId, node: '1', output: null });
    this.emit({ type: 'execution_success', promptId });
  }

  #makeApi(): ServiceApi {
    return {
      profile: this.profile,
      getNodeDefinitions: async (): Promise<NodeDefinitions> => parseNodeDefinitions(DEFINITIONS),
      uploadImage: async (): Promise<UploadResult> => {
        throw new Error('the bench server takes no uploads');
      },
      uploadMask: async (): Promise<UploadResult> => {
        throw new Error('the bench server takes no uploads');
      },
      submit: async (): Promise<SubmitResult> => {
        const promptId = randomUUID();
        this.#jobs.set(promptId, 'pending');
        this.#number += 1;
        queueMicrotask(() => this.#submitted?.(promptId));
        return { promptId, number: this.#number };
      },
      getJobStatus: async (promptId: string): Promise<JobStatusReading> => {
        const phase = this.#jobs.get(promptId) ?? 'pending';
        return { phase, raw: phase === 'succeeded' ? 'completed' : phase === 'running' ? 'in_progress' : 'pending', known: true };
      },
      getHistory: async (promptId: string): Promise<JobHistory | null> =>
        this.#jobs.get(promptId) === 'succeeded' ? { reading: { phase: 'succeeded', raw: 'completed', known: true }, outputs: [] } : null,
      getQueue: async (): Promise<QueueSnapshot> => ({
        running: [...this.#jobs].filter(([, p]) => p === 'running').map(([promptId]) => ({ promptId, number: null })),
        pending: [...this.#jobs].filter(([, p]) => p === 'pending').map(([promptId]) => ({ promptId, number: null })),
      }),
      capabilities: capabilitiesFor('cloud'),
      discover: async () => capabilitiesFor('cloud'),
      getFeatures: async () => null,
      listJobs: async () => ({ jobs: [], pagination: { offset: 0, limit: 100, total: 0, hasMore: false } }),
      getJob: async () => {
        throw new Error('the bench server lists no jobs');
      },
      stopJob: async () => ({ kind: 'stopped' }),
      cancel: async () => ({ stillRunning: [] }),
      clearPending: async () => undefined,
      interrupt: async () => undefined,
      download: async (): Promise<DownloadResult> => {
        throw new Error('the bench server has no files');
      },
    };
  }

  readonly events: EventStream = {
    clientId: randomUUID(),
    state: 'connected',
    droppedFrames: 0,
    start: () => {
      for (const listener of [...this.#stateListeners]) listener('connected');
    },
    dispose: async () => {
      this.#eventListeners.clear();
      this.#stateListeners.clear();
    },
    onEvent: (listener) => {
      this.#eventListeners.add(listener);
      return () => this.#eventListeners.delete(listener);
    },
    onStateChange: (listener) => {
      this.#stateListeners.add(listener);
      return () => this.#stateListeners.delete(listener);
    },
    setExpectingActivity: () => undefined,
  };
}

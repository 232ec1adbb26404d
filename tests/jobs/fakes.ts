// Test doubles for the tracker: a manual clock, an EventStream the test drives, and a ServiceApi
// whose status/history/queue answers the test sets. Not a test file itself (no .test.ts).
import type { NodeDefinitions } from '@main/service/object-info';
import type { ConnectionState, DownloadResult, EventStream, JobHistory, ServiceApi } from '@main/service/ports';
import type { JobStatusReading, OutputFile, QueueSnapshot, ServerEvent, ServerKind, ServerProfile, SubmitResult, UploadResult } from '@main/service/types';
import type { TrackerClock } from '@main/jobs/tracker';
import { capabilitiesFor, type ServerCapabilities, type ServerFeatures } from '@main/service/capabilities';
import type { JobDetail, JobPage } from '@main/service/job-list';
import type { CancelResult, StopOutcome } from '@main/service/ports';

/** Lets promise chains (and sqlite callbacks) run. */
export async function flush(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

export class FakeClock implements TrackerClock {
  private t = 1_000_000;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward, firing due timers in order and letting their promises settle. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    for (;;) {
      await flush();
      let next: [number, { at: number; fn: () => void }] | null = null;
      for (const entry of this.timers) if (entry[1].at <= target && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
    }
    this.t = target;
    await flush();
  }
}

export class FakeEvents implements EventStream {
  readonly clientId: string;
  state: ConnectionState = 'connected';
  readonly droppedFrames = 0;
  readonly expecting: boolean[] = [];
  private readonly eventListeners = new Set<(event: ServerEvent) => void>();
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();

  constructor(clientId = 'client-test') {
    this.clientId = clientId;
  }

  start(): void {}

  async dispose(): Promise<void> {}

  onEvent(listener: (event: ServerEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  onStateChange(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  setExpectingActivity(expecting: boolean): void {
    this.expecting.push(expecting);
  }

  get listenerCount(): number {
    return this.eventListeners.size + this.stateListeners.size;
  }

  emit(...events: ServerEvent[]): void {
    for (const event of events) for (const listener of [...this.eventListeners]) listener(event);
  }

  setState(state: ConnectionState): void {
    this.state = state;
    for (const listener of [...this.stateListeners]) listener(state);
  }
}

type Answer<T> = T | Error | (() => T | Promise<T>);

async function answer<T>(value: Answer<T> | undefined, fallback: () => T): Promise<T> {
  if (value === undefined) return fallback();
  if (value instanceof Error) throw value;
  if (typeof value === 'function') return (value as () => T | Promise<T>)();
  return value;
}

export class FakeApi implements ServiceApi {
  readonly profile: ServerProfile;
  readonly statuses = new Map<string, Answer<JobStatusReading>>();
  readonly histories = new Map<string, Answer<JobHistory | null>>();
  queue: Answer<QueueSnapshot> = { running: [], pending: [] };
  readonly calls: string[] = [];

  constructor(kind: ServerKind = 'cloud', baseUrl = kind === 'cloud' ? 'https://cloud.example' : 'http://127.0.0.1:8188') {
    this.profile = { kind, baseUrl };
  }

  count(prefix: string): number {
    return this.calls.filter((c) => c.startsWith(prefix)).length;
  }

  async getJobStatus(promptId: string): Promise<JobStatusReading> {
    this.calls.push(`status ${promptId}`);
    return answer(this.statuses.get(promptId), () => ({ phase: 'pending', raw: 'pending', known: true }));
  }

  async getHistory(promptId: string): Promise<JobHistory | null> {
    this.calls.push(`history ${promptId}`);
    return answer(this.histories.get(promptId), () => null);
  }

  async getQueue(): Promise<QueueSnapshot> {
    this.calls.push('queue');
    return answer(this.queue, () => ({ running: [], pending: [] }));
  }

  getNodeDefinitions(): Promise<NodeDefinitions> {
    return Promise.reject(new Error('not used by the tracker'));
  }
  uploadImage(): Promise<UploadResult> {
    return Promise.reject(new Error('not used by the tracker'));
  }
  uploadMask(): Promise<UploadResult> {
    return Promise.reject(new Error('not used by the tracker'));
  }
  submit(): Promise<SubmitResult> {
    return Promise.reject(new Error('not used by the tracker'));
  }
  get capabilities(): ServerCapabilities {
    return capabilitiesFor(this.profile.kind);
  }
  async discover(): Promise<ServerCapabilities> {
    return this.capabilities;
  }
  async getFeatures(): Promise<ServerFeatures | null> {
    return null;
  }
  listJobs(): Promise<JobPage> {
    return Promise.reject(new Error('not used by the tracker'));
  }
  getJob(): Promise<JobDetail> {
    return Promise.reject(new Error('not used by the tracker'));
  }
  stopJob(): Promise<StopOutcome> {
    return Promise.reject(new Error('not used by the tracker'));
  }
  cancel(): Promise<CancelResult> {
    return Promise.reject(new Error('not used by the tracker'));
  }
  clearPending(): Promise<void> {
    return Promise.reject(new Error('not used by the tracker'));
  }
  interrupt(): Promise<void> {
    return Promise.reject(new Error('not used by the tracker'));
  }
  download(): Promise<DownloadResult> {
    return Promise.reject(new Error('not used by the tracker'));
  }
}

export function reading(raw: string, phase: JobStatusReading['phase'], errorMessage?: string): JobStatusReading {
  return errorMessage === undefined ? { phase, raw, known: true } : { phase, raw, known: true, errorMessage };
}

export function file(filename: string, node = '9', key = 'images'): OutputFile {
  return { filename, subfolder: '', type: 'output', node, key };
}

/** A deferred value: the test decides when an api call answers. */
export function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

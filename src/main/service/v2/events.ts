// V2Events: the EventStream of a v2 server, made of one server-sent event stream per job this
// client submitted (GET the job's `urls.events`). Its frames become the events the tracker already
// reads: `status` running -> execution_start, `progress` -> executing/progress, `preview` -> a
// preview (the same latest-wins path as binary previews), `output` -> executed. The terminal
// status is never taken from the stream alone: the job resource is read (the truth: complete
// outputs, the failure's details) and its outputs and end are announced from it. A stream that
// is refused (429 too_many_streams, 501), fails or goes quiet leaves the job to polling: the
// state is then 'reconnecting', so the tracker polls every interval until a stream is back.
import { randomUUID } from 'node:crypto';
import { discardBody, nodeBodyOf } from '../stream-request';
import { sniffImageMime } from '../frames';
import type { EventStream } from '../ports';
import type { ConnectionState, ServerEvent } from '../types';
import { isTerminalStatus, outputFileOf } from './job-mapping';
import { readSse } from './sse';
import { outputSchema, previewEventSchema, progressSchema, statusEventSchema, type V2Job, type V2Output } from './wire';
import type { V2Client } from './client';
import { retryAfterMs } from './errors';
import { describeError } from '@shared/describe-error';
import { StreamListeners } from '../stream-listeners';

/** Largest event accepted (a base64 preview); larger ends the stream. */
const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** A stream with no byte (not even a keepalive, sent every ~15 s) for this long is dead. */
const QUIET_MS = 45_000;

export class V2Events implements EventStream {
  readonly clientId: string;
  readonly droppedFrames = 0;
  #state: ConnectionState = 'connecting';
  readonly #listeners: StreamListeners;
  readonly #streams = new Map<string, AbortController>();
  /** Jobs whose stream failed and that are left to polling. */
  readonly #polled = new Set<string>();
  #offSubmitted: (() => void) | null = null;
  #disposed = false;

  constructor(
    private readonly client: V2Client,
    private readonly log: (line: string) => void = () => {},
    clientId: string = randomUUID(),
  ) {
    this.clientId = clientId;
    this.#listeners = new StreamListeners(log, 'v2 events');
  }

  get state(): ConnectionState {
    return this.#state;
  }

  start(): void {
    if (this.#offSubmitted || this.#disposed) return;
    this.#offSubmitted = this.client.onSubmitted((job) => this.follow(job.id));
    this.#setState('connected');
  }

  /** Opens the event stream of a job (one this client submitted, or one followed again). */
  follow(jobId: string): void {
    if (this.#disposed || this.#streams.has(jobId)) return;
    const abort = new AbortController();
    this.#streams.set(jobId, abort);
    void this.#run(jobId, abort).finally(() => {
      if (this.#streams.get(jobId) === abort) this.#streams.delete(jobId);
    });
  }

  async #run(jobId: string, abort: AbortController): Promise<void> {
    let terminal = false;
    try {
      terminal = await this.#stream(jobId, abort);
    } catch (error) {
      if (!abort.signal.aborted) this.log(`events of job ${jobId}: ${describeError(error)}; polling it instead`);
    }
    if (terminal || this.#disposed) {
      this.#polled.delete(jobId);
    } else {
      // Refused, failed, ended early or went quiet: the job resource stays the truth, by polling.
      this.#polled.add(jobId);
    }
    this.#updateState();
  }

  /** Reads the job's stream; true once its end was announced. */
  async #stream(jobId: string, abort: AbortController): Promise<boolean> {
    const http = this.client.transport;
    const link = this.client.eventsUrlOf(jobId) ?? `/api/v2/jobs/${encodeURIComponent(jobId)}/events`;
    const target = new URL(link, http.url('/'));
    // The key goes only to the surface's own origin: an events link elsewhere is not followed.
    if (target.origin !== http.url('/').origin) return false;
    const response = await http.open({ method: 'GET', path: target.pathname, what: "the job's event stream", signal: abort.signal });
    if (response.status < 200 || response.status > 299) {
      discardBody(response);
      if (response.status === 429) this.log(`events of job ${jobId}: refused (too many streams), retry after ${retryAfterMs(response.headers)} ms; polling it`);
      return false;
    }
    const body = nodeBodyOf(response) ?? response.body;
    if (!body) return false;
    this.#polled.delete(jobId);
    this.#updateState();
    let quiet: ReturnType<typeof setTimeout> | null = null;
    const arm = (): void => {
      if (quiet) clearTimeout(quiet);
      quiet = setTimeout(() => abort.abort(new Error('the event stream went quiet')), QUIET_MS);
      quiet.unref?.();
    };
    arm();
    try {
      for await (const frame of readSse(body, MAX_FRAME_BYTES, arm)) {
        if (this.#disposed) return true;
        let data: unknown;
        try {
          data = JSON.parse(frame.data);
        } catch {
          continue;
        }
        if (await this.#handle(jobId, frame.event, data)) return true;
      }
      return false;
    } finally {
      if (quiet) clearTimeout(quiet);
      discardBody(response);
    }
  }

  /** One frame; true when it ended the job. */
  async #handle(jobId: string, event: string, data: unknown): Promise<boolean> {
    switch (event) {
      case 'status': {
        const status = statusEventSchema.safeParse(data);
        if (!status.success) return false;
        if (status.data.status === 'running') this.#emit({ type: 'execution_start', promptId: jobId });
        if (!isTerminalStatus(status.data.status)) return false;
        await this.#announceEnd(jobId);
        return true;
      }
      case 'progress': {
        const progress = progressSchema.safeParse(data);
        if (!progress.success) return false;
        const node = progress.data.current_node ?? null;
        if (node !== null) this.#emit({ type: 'executing', promptId: jobId, node });
        if (progress.data.step != null && progress.data.steps)
          this.#emit({ type: 'progress', promptId: jobId, node, value: progress.data.step, max: progress.data.steps });
        return false;
      }
      case 'preview': {
        const preview = previewEventSchema.safeParse(data);
        if (!preview.success) return false;
        const bytes = Buffer.from(preview.data.data_base64, 'base64');
        const mime = sniffImageMime(bytes);
        if (mime) this.#emit({ type: 'preview', frameType: 4, promptId: jobId, nodeId: preview.data.node_id ?? null, displayNodeId: null, mime, bytes });
        return false;
      }
      case 'output': {
        const output = outputSchema.safeParse(data);
        if (output.success) this.#emitOutput(jobId, output.data);
        return false;
      }
      default:
        return false;
    }
  }

  /** An output as v1's `executed` event carries it, so the tracker collects the very OutputFile polling would. */
  #emitOutput(jobId: string, output: V2Output): void {
    const file = outputFileOf(output);
    this.#emit({
      type: 'executed',
      promptId: jobId,
      node: file.node,
      output: { [file.key]: [{ filename: file.filename, subfolder: file.subfolder, type: file.type }] },
    });
  }

  /** The stream said the job ended: read the job (the truth) and announce its outputs and its end. */
  async #announceEnd(jobId: string): Promise<void> {
    let job: V2Job;
    try {
      job = await this.client.getJobResource(jobId);
    } catch (error) {
      // The poller reads it: the tracker asks the job resource itself when a job goes quiet.
      this.log(`events of job ${jobId}: its end was announced but the job could not be read (${describeError(error)})`);
      this.#polled.add(jobId);
      return;
    }
    for (const output of job.outputs ?? []) this.#emitOutput(jobId, output);
    if (job.status === 'succeeded') this.#emit({ type: 'execution_success', promptId: jobId });
    else if (job.status === 'canceled') this.#emit({ type: 'execution_interrupted', promptId: jobId, nodeId: null, nodeType: null });
    else if (job.status === 'failed' || job.status === 'expired') {
      this.#emit({
        type: 'execution_error',
        promptId: jobId,
        nodeId: job.error?.node_id ?? null,
        nodeType: job.error?.class_type ?? null,
        exceptionType: job.error?.code ?? job.status,
        exceptionMessage: job.error?.message ?? `The server reported the job as ${job.status}.`,
        traceback: job.error?.traceback ? job.error.traceback.split('\n') : [],
      });
    }
  }

  #emit(event: ServerEvent): void {
    this.#listeners.emit(event);
  }

  #updateState(): void {
    if (this.#disposed) return;
    this.#setState(this.#polled.size > 0 ? 'reconnecting' : 'connected');
  }

  #setState(state: ConnectionState): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#listeners.emitState(state);
  }

  onEvent(listener: (event: ServerEvent) => void): () => void {
    return this.#listeners.onEvent(listener);
  }

  onStateChange(listener: (state: ConnectionState) => void): () => void {
    return this.#listeners.onStateChange(listener);
  }

  setExpectingActivity(): void {
    // Quiet is judged per stream (QUIET_MS), not for the whole connection.
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    this.#offSubmitted?.();
    for (const abort of this.#streams.values()) abort.abort();
    this.#streams.clear();
    this.#setState('closed');
  }
}

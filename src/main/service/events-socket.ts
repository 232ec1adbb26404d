// EventsSocket: the WebSocket half of the service (PROTOCOL.md "WebSocket /ws"). It keeps one
// connection alive for the app: validates every text frame and decodes every binary frame
// (counting what it must drop), reconnects with capped, jittered exponential backoff, notices a
// connection that stays open but goes quiet while a job is in flight ("silent") and a dead one
// (unanswered pings), and reports a refused key as `offline` with `lastError` instead of
// hammering the server. The key travels only in the URL's `token` (cloud) and never into a log.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { backoffDelay } from './backoff';
import { messageForStatus, redactDeep, redactSecret, ServiceError } from './errors';
import { decodeBinaryFrame, isDroppedFrame } from './frames';
import { MessageDecoder } from './messages';
import { StreamListeners } from './stream-listeners';
import type { ApiKeyProvider, ConnectionState, EventStream } from './ports';
import type { ServerEvent, ServerProfile } from './types';

export interface SocketBackoffOptions {
  /** Shortest delay before a reconnect (ms). */
  minMs: number;
  /** Longest delay before a reconnect (ms). */
  maxMs: number;
  /** A connection open this long counts as healthy: the next failure starts again from minMs. */
  healthyAfterMs: number;
  /** Delay before trying again after the server refused the key (401/403) or the subscription (429). */
  refusedRetryMs: number;
  random: () => number;
}

export interface EventsSocketOptions {
  apiKey: ApiKeyProvider;
  /** Sent as `clientId`; use the same value as `client_id` when submitting. Default: a random UUID. */
  clientId?: string;
  /** With activity expected, this long without any frame marks the connection silent (ms). Default 30 s. */
  silenceTimeoutMs?: number;
  /** Ping period; a ping unanswered by the next one ends the connection (ms). Default 15 s. */
  pingIntervalMs?: number;
  /** Consecutive failed attempts after which the state reads `offline` (retries go on). Default 3. */
  offlineAfterFailures?: number;
  handshakeTimeoutMs?: number;
  backoff?: Partial<SocketBackoffOptions>;
  /** The `ws` WebSocket class, or a compatible one (tests). */
  WebSocketImpl?: typeof WebSocket;
  logger?: (line: string) => void;
}

const DEFAULT_BACKOFF: SocketBackoffOptions = {
  minMs: 500,
  maxMs: 15_000,
  healthyAfterMs: 10_000,
  refusedRetryMs: 60_000,
  random: Math.random,
};

/** The first message: ask for type 4 previews (with node and prompt ids). */
const FEATURE_FLAGS = JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } });

type Refusal = { error: ServiceError } | null;

function rawToBytes(data: WebSocket.RawData): Uint8Array {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return new Uint8Array(data);
}

export class EventsSocket implements EventStream {
  readonly clientId: string;
  readonly profile: ServerProfile;
  #state: ConnectionState = 'closed';
  #lastError: ServiceError | null = null;
  #droppedBinary = 0;
  readonly #binaryDrops = new Map<string, number>();
  readonly #messages = new MessageDecoder();
  /** The key the provider held at the last connect, whatever the server kind: scrubbed from every text event. */
  #secret: string | null = null;

  readonly #apiKey: ApiKeyProvider;
  readonly #silenceMs: number;
  readonly #pingMs: number;
  readonly #offlineAfter: number;
  readonly #handshakeMs: number;
  readonly #backoff: SocketBackoffOptions;
  readonly #WebSocket: typeof WebSocket;
  readonly #log: (line: string) => void;

  readonly #listeners: StreamListeners;

  #started = false;
  #disposed = false;
  #socket: WebSocket | null = null;
  #attempt = 0;
  #failures = 0;
  #openedAt = 0;
  #lastActivity = 0;
  #expecting = false;
  #awaitingPong = false;
  #refusal: Refusal = null;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #silenceTimer: NodeJS.Timeout | null = null;
  #pingTimer: NodeJS.Timeout | null = null;

  constructor(profile: ServerProfile, options: EventsSocketOptions) {
    this.profile = profile;
    this.clientId = options.clientId ?? randomUUID();
    this.#apiKey = options.apiKey;
    this.#silenceMs = options.silenceTimeoutMs ?? 30_000;
    this.#pingMs = options.pingIntervalMs ?? 15_000;
    this.#offlineAfter = options.offlineAfterFailures ?? 3;
    this.#handshakeMs = options.handshakeTimeoutMs ?? 10_000;
    this.#backoff = { ...DEFAULT_BACKOFF, ...(options.backoff ?? {}) };
    this.#WebSocket = options.WebSocketImpl ?? WebSocket;
    this.#log = options.logger ?? (() => {});
    this.#listeners = new StreamListeners(this.#log, 'socket');
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** Why the connection is offline when the server refused it (401 -> kind 'unauthorized'); null otherwise. */
  get lastError(): ServiceError | null {
    return this.#lastError;
  }

  /** Binary frames dropped (short, overrunning, unknown type, bad metadata, not an image) plus text frames rejected (invalid JSON, failed schema). */
  get droppedFrames(): number {
    return this.#droppedBinary + this.#messages.rejectedCount;
  }

  /** Dropped frames by reason: binary reasons prefixed "binary:", text reasons "text:". */
  dropReasons(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [reason, n] of this.#binaryDrops) out[`binary:${reason}`] = n;
    for (const [reason, n] of Object.entries(this.#messages.rejectedByReason())) out[`text:${reason}`] = n;
    return out;
  }

  start(): void {
    if (this.#disposed) throw new Error('EventsSocket.start() after dispose()');
    if (this.#started) return;
    this.#started = true;
    this.#setState('connecting');
    void this.#connect();
  }

  /** Skips the backoff wait (e.g. after the user changed the key). */
  reconnectNow(): void {
    if (!this.#started || this.#disposed) return;
    this.#attempt = 0;
    if (this.#socket) {
      this.#socket.terminate();
      return;
    }
    if (this.#reconnectTimer) {
      clearTimeout(this.#reconnectTimer);
      this.#reconnectTimer = null;
      void this.#connect();
    }
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#clearTimers();
    const socket = this.#socket;
    this.#socket = null;
    this.#setState('closed');
    if (socket && socket.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          socket.terminate();
          resolve();
        }, 1000);
        socket.once('close', () => {
          clearTimeout(force);
          resolve();
        });
        if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
        else socket.close(1000, 'client closing');
      });
    }
    this.#listeners.clear();
  }

  onEvent(listener: (event: ServerEvent) => void): () => void {
    return this.#listeners.onEvent(listener);
  }

  onStateChange(listener: (state: ConnectionState) => void): () => void {
    return this.#listeners.onStateChange(listener);
  }

  setExpectingActivity(expecting: boolean): void {
    if (expecting === this.#expecting) return;
    this.#expecting = expecting;
    if (expecting) {
      // Silence is counted from the moment activity is expected, not from the last frame.
      this.#lastActivity = Date.now();
      this.#armSilence();
    } else if (this.#silenceTimer) {
      clearTimeout(this.#silenceTimer);
      this.#silenceTimer = null;
    }
  }

  // ------------------------------------------------------------ connection

  #url(key: string | null): URL {
    const url = new URL(this.profile.baseUrl.replace(/\/+$/, '') + '/ws');
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('clientId', this.clientId);
    if (key) url.searchParams.set('token', key);
    return url;
  }

  async #connect(): Promise<void> {
    this.#reconnectTimer = null;
    let key: string | null = null;
    // A local server gets no token but may still echo the partner key (sent in extra_data).
    this.#secret = await Promise.resolve(this.#apiKey()).then(
      (k) => k?.trim() || null,
      () => null,
    );
    if (this.profile.kind === 'cloud') {
      try {
        key = (await this.#apiKey())?.trim() || null;
      } catch {
        key = null;
      }
      if (this.#disposed) return;
      if (!key) {
        this.#refused(
          new ServiceError('unauthorized', 'No API key is set, so the event stream cannot connect. Set the key, then reconnect.', { retryable: false }),
        );
        this.#schedule(this.#backoff.refusedRetryMs);
        return;
      }
    }
    if (this.#disposed) return;
    const url = this.#url(key);
    const shown = new URL(url);
    if (key) shown.searchParams.set('token', '[redacted]');
    this.#log(`socket: connecting to ${shown.toString()}`);
    this.#refusal = null;
    let socket: WebSocket;
    try {
      socket = new this.#WebSocket(url, { handshakeTimeout: this.#handshakeMs });
    } catch (error) {
      this.#log(`socket: cannot open: ${redactSecret(String(error), key)}`);
      this.#afterClose(false);
      return;
    }
    socket.binaryType = 'nodebuffer';
    this.#socket = socket;
    let opened = false;

    socket.on('unexpected-response', (_req, res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      res.resume();
      if (status === 401 || status === 403 || status === 429 || status === 402) {
        const { kind, message } = messageForStatus(status, 'the event stream');
        this.#refusal = { error: new ServiceError(kind, message, { status, retryable: false }) };
      }
      this.#log(`socket: the server refused the upgrade (HTTP ${status})`);
      socket.terminate();
    });
    socket.on('open', () => {
      if (this.#socket !== socket) return;
      opened = true;
      this.#openedAt = Date.now();
      this.#lastActivity = this.#openedAt;
      this.#failures = 0;
      this.#lastError = null;
      this.#awaitingPong = false;
      socket.send(FEATURE_FLAGS);
      this.#setState('connected');
      this.#startPing(socket);
      this.#armSilence();
      this.#log('socket: connected');
    });
    socket.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      if (this.#socket !== socket) return;
      this.#lastActivity = Date.now();
      this.#handleFrame(data, isBinary);
    });
    socket.on('pong', () => {
      this.#awaitingPong = false;
    });
    socket.on('error', (error: Error) => {
      // Always handled here ('close' follows); an unhandled 'error' would crash the process.
      this.#log(`socket: error: ${redactSecret(error.message, key)}`);
    });
    socket.on('close', (code: number) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#log(`socket: closed (${code})`);
      this.#afterClose(opened);
    });
  }

  #afterClose(wasOpen: boolean): void {
    this.#stopPing();
    if (this.#silenceTimer) {
      clearTimeout(this.#silenceTimer);
      this.#silenceTimer = null;
    }
    if (this.#disposed) return;
    if (wasOpen && Date.now() - this.#openedAt >= this.#backoff.healthyAfterMs) this.#attempt = 0;
    const refusal = this.#refusal;
    this.#refusal = null;
    if (refusal) {
      this.#refused(refusal.error);
      this.#schedule(this.#backoff.refusedRetryMs);
      return;
    }
    if (!wasOpen) this.#failures += 1;
    const delay = backoffDelay(this.#attempt, {
      baseMs: this.#backoff.minMs,
      maxMs: this.#backoff.maxMs,
      minMs: this.#backoff.minMs,
      random: this.#backoff.random,
    });
    this.#attempt += 1;
    if (this.#failures >= this.#offlineAfter) this.#setState('offline');
    else if (this.#state !== 'offline') this.#setState('reconnecting');
    this.#schedule(delay);
  }

  #refused(error: ServiceError): void {
    this.#lastError = error;
    this.#setState('offline');
  }

  #schedule(delayMs: number): void {
    if (this.#disposed) return;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#log(`socket: reconnecting in ${delayMs} ms`);
    this.#reconnectTimer = setTimeout(() => void this.#connect(), delayMs);
  }

  // ------------------------------------------------------------ frames

  #handleFrame(data: WebSocket.RawData, isBinary: boolean): void {
    if (isBinary) {
      const frame = decodeBinaryFrame(rawToBytes(data));
      if (isDroppedFrame(frame)) {
        this.#droppedBinary += 1;
        this.#binaryDrops.set(frame.reason, (this.#binaryDrops.get(frame.reason) ?? 0) + 1);
        return;
      }
      this.#emit(frame);
      return;
    }
    const text = Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(rawToBytes(data)).toString('utf8');
    const event = this.#messages.decode(text);
    // Redacted here, where server text enters: messages, tracebacks and inputs of an
    // execution_error may echo the key, and nothing downstream (store, logs, window) sees it.
    if (event) this.#emit(redactDeep(event, this.#secret));
  }

  #emit(event: ServerEvent): void {
    this.#listeners.emit(event);
  }

  #setState(state: ConnectionState): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#listeners.emitState(state);
  }

  // ------------------------------------------------------------ liveness

  #startPing(socket: WebSocket): void {
    this.#stopPing();
    this.#pingTimer = setInterval(() => {
      if (this.#socket !== socket || socket.readyState !== WebSocket.OPEN) return;
      if (this.#awaitingPong) {
        this.#log('socket: no pong since the last ping; the connection is dead');
        socket.terminate();
        return;
      }
      this.#awaitingPong = true;
      socket.ping();
    }, this.#pingMs);
  }

  #stopPing(): void {
    if (this.#pingTimer) clearInterval(this.#pingTimer);
    this.#pingTimer = null;
  }

  #armSilence(): void {
    if (this.#silenceTimer) clearTimeout(this.#silenceTimer);
    this.#silenceTimer = null;
    if (!this.#expecting || this.#state !== 'connected') return;
    const due = this.#lastActivity + this.#silenceMs - Date.now();
    this.#silenceTimer = setTimeout(() => this.#checkSilence(), Math.max(0, due));
  }

  #checkSilence(): void {
    this.#silenceTimer = null;
    if (!this.#expecting || this.#state !== 'connected' || !this.#socket) return;
    if (Date.now() - this.#lastActivity < this.#silenceMs) {
      this.#armSilence();
      return;
    }
    this.#log(`socket: nothing received for ${this.#silenceMs} ms while a job is in flight; reconnecting`);
    this.#setState('silent');
    // A quiet but open connection is not a failed attempt: start the backoff from the bottom.
    this.#attempt = 0;
    this.#socket.terminate();
  }

  #clearTimers(): void {
    this.#stopPing();
    for (const timer of [this.#reconnectTimer, this.#silenceTimer]) if (timer) clearTimeout(timer);
    this.#reconnectTimer = null;
    this.#silenceTimer = null;
  }
}

// The one place REST requests are made. It builds URLs from the profile's base URL, attaches the
// API key only to the service's own origin (and only for the cloud), never follows redirects (a
// followed redirect would carry the key to the storage host), applies timeouts, retries idempotent
// requests on 5xx and network failures with jittered backoff, and turns failures into ServiceError.
import { redactSecret, ServiceError, messageForStatus } from './errors';
import { backoffDelay, resolveRetryPolicy, type RetryPolicy } from './backoff';
import type { ApiKeyProvider } from './ports';
import type { ServerProfile } from './types';
import { serverReason } from './responses';
import { parseJsonExact, stringifyJsonExact } from '@shared/json';
import type { MultipartBody } from './multipart';
import { discardBody, getStreamed, nodeBodyOf, sendStreamed } from './stream-request';
import { readNodeBodyCapped, readWebBodyCapped } from './body-read';
import { serviceLimits, type ServiceLimits } from './limits';

/** What Flowdeck calls itself to servers. */
export const FLOWDECK_USER_AGENT = 'Flowdeck';

export interface HttpOptions {
  apiKey: ApiKeyProvider;
  fetch?: typeof fetch;
  retry?: Partial<RetryPolicy>;
  logger?: (line: string) => void;
  /** Default timeout of one attempt, headers and body together (ms); default limits.answerTimeoutMs. */
  timeoutMs?: number;
  /** Size caps and deadlines; default serviceLimits() (the environment's overrides). */
  limits?: ServiceLimits;
  /** Told once per request that has had no answer for limits.waitNoticeMs ("waiting for … to answer /api/queue"). */
  onWait?: (message: string) => void;
  /**
   * How the key travels: the v1 cloud's `X-API-Key` (cloud profiles only), or Comfy API v2's
   * `Authorization: Bearer` (any profile that holds a key; a self-hosted proxy without a token
   * gets none because none is held). Either way only to the service's own origin.
   */
  auth?: 'x-api-key' | 'bearer';
}

/** A transport's options taken from a client's (the fields both share), plus `extra`. */
export function transportOptions(options: Omit<HttpOptions, 'auth'>, extra: Partial<HttpOptions> = {}): HttpOptions {
  return {
    apiKey: options.apiKey,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.onWait ? { onWait: options.onWait } : {}),
    ...extra,
  };
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'HEAD' | 'DELETE';
  /** Extra request headers (e.g. v2's Idempotency-Key); never the key, which #headers adds. */
  headers?: Record<string, string>;
  /** Path under the base URL, starting with /api/. */
  path: string;
  query?: Record<string, string>;
  /** JSON body, serialised exactly (bigint seeds stay exact). */
  json?: unknown;
  /** Multipart body (multipart.ts); a function so that each attempt gets a fresh stream. */
  form?: () => Promise<MultipartBody>;
  /** Safe to send twice. Defaults to true for GET, false for POST. */
  idempotent?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** What the request is for, in words ("the queue"): used in error messages. */
  what: string;
  /** Cap of a successful answer's body; default limits.jsonAnswerBytes. Error bodies get limits.errorBodyBytes. */
  maxBytes?: number;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** The body as text ('' when empty). */
  text: string;
}

/**
 * A request that got no answer at all within its deadline: the server accepted the connection (or
 * never completed it) and said nothing. Not retried: a server silent for the whole deadline is hung
 * or overloaded, and asking again would only multiply the wait.
 */
export class NoAnswerError extends ServiceError {
  constructor(message: string, cause: unknown) {
    super('network', message, { cause, retryable: false });
    this.name = 'NoAnswerError';
  }
}

/** Parses an answer's body as JSON; undefined when it is empty or not JSON (a 500 text body is fine). */
/**
 * The answer's JSON with integers beyond 2^53 kept exact (bigint): for answers that carry a
 * workflow, whose seeds go up to 2^64-1. undefined when the body is empty or not JSON.
 */
export function exactJsonOf(answer: HttpAnswer): unknown {
  if (answer.text === '') return undefined;
  try {
    return parseJsonExact(answer.text);
  } catch {
    return undefined;
  }
}

export function jsonOf(answer: HttpAnswer): unknown {
  if (answer.text === '') return undefined;
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    return undefined;
  }
}

/** An abort whose reason is the per-attempt timeout (a DOMException named TimeoutError), at any depth. */
function isTimeoutReason(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth += 1) {
    if (typeof current === 'object' && current !== null && (current as { name?: unknown }).name === 'TimeoutError') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function isRetryableStatus(status: number): boolean {
  // 501 "Not Implemented" does not go away with time (see messageForStatus).
  return status >= 500 && status <= 599 && status !== 501;
}

function errorCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth += 1) {
    if (typeof current === 'object' && current !== null && 'code' in current && typeof (current as { code: unknown }).code === 'string') {
      return (current as { code: string }).code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

export class HttpTransport {
  readonly profile: ServerProfile;
  readonly #apiKey: ApiKeyProvider;
  readonly #fetch: typeof fetch;
  /** Tests that inject fetch see every request; otherwise downloads stream over node:http. */
  readonly #customFetch: boolean;
  readonly #retry: RetryPolicy;
  readonly #log: (line: string) => void;
  readonly #timeoutMs: number;
  readonly #base: URL;
  readonly limits: ServiceLimits;
  readonly #onWait: ((message: string) => void) | null;
  readonly #auth: 'x-api-key' | 'bearer';

  constructor(profile: ServerProfile, options: HttpOptions) {
    this.profile = profile;
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#customFetch = options.fetch !== undefined;
    this.#retry = resolveRetryPolicy(options.retry);
    this.#log = options.logger ?? (() => {});
    this.limits = options.limits ?? serviceLimits();
    this.#timeoutMs = options.timeoutMs ?? this.limits.answerTimeoutMs;
    this.#onWait = options.onWait ?? null;
    this.#auth = options.auth ?? 'x-api-key';
    this.#base = new URL(profile.baseUrl.replace(/\/+$/, '') + '/');
  }

  get retryPolicy(): RetryPolicy {
    return this.#retry;
  }

  /** The absolute URL of a path under the base URL (a base with a path prefix keeps it). */
  url(path: string, query?: Record<string, string>): URL {
    const url = new URL(path.replace(/^\/+/, ''), this.#base);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    return url;
  }

  /** The key the provider holds, whatever the server kind (partner nodes, redaction). */
  async providedKey(): Promise<string | null> {
    const key = await this.#apiKey();
    return key && key.trim() !== '' ? key.trim() : null;
  }

  /** The key for the X-API-Key header: cloud profiles only (local servers take none). */
  async key(): Promise<string | null> {
    if (this.profile.kind !== 'cloud' && this.#auth !== 'bearer') return null;
    return this.providedKey();
  }

  /** Headers for a request to `url`: the key only when `url` is on the service's own origin. */
  async #headers(url: URL, extra: Record<string, string>): Promise<Headers> {
    const headers = new Headers(extra);
    // Named on every request, whichever transport carries it (fetch would say "node", node:http
    // nothing at all; some fronting proxies refuse a request that names no agent).
    if (!headers.has('User-Agent')) headers.set('User-Agent', FLOWDECK_USER_AGENT);
    if (url.origin === this.#base.origin) {
      const key = await this.key();
      if (key && this.#auth === 'bearer') headers.set('Authorization', `Bearer ${key}`);
      else if (key) headers.set('X-API-Key', key);
    }
    return headers;
  }

  /**
   * Sends a request and reads its body as text, retrying idempotent requests on 5xx and network
   * failures. Returns the final answer whatever its status; throws ServiceError only for network
   * failures, timeouts and cancellation.
   */
  async request(spec: RequestSpec): Promise<HttpAnswer> {
    return this.#withRetries(
      spec,
      async (signal, disarm) => {
        const response = await this.#send(spec, signal);
        // Capped by purpose (limits.ts): an error body only lends its reason, so it is cut short;
        // a successful answer must be whole, so more than its cap is an error.
        const ok = response.status >= 200 && response.status <= 299;
        const cap = ok ? (spec.maxBytes ?? this.limits.jsonAnswerBytes) : this.limits.errorBodyBytes;
        const overCap = ok ? 'fail' : 'truncate';
        const nodeBody = nodeBodyOf(response);
        const reading = nodeBody
          ? readNodeBodyCapped(nodeBody, cap, spec.what, overCap).then((bytes) => bytes.toString('utf8'))
          : readWebBodyCapped(response, cap, spec.what, overCap);
        // A body cut by the deadline or the caller ends in that reason, whichever transport carried
        // it (node:http tells only of a reset connection), so a stall reads as no answer, not as a failure.
        const text = await reading.catch((error: unknown) => {
          throw signal.aborted ? signal.reason : error;
        });
        disarm();
        // Every server-supplied text loses the key here, before anything parses, stores or logs it.
        return { status: response.status, headers: response.headers, text: await this.redact(text) };
      },
      (answer) => answer.status,
    );
  }

  /** Like request(), but a non-2xx answer becomes a ServiceError. */
  async requestOk(spec: RequestSpec): Promise<HttpAnswer> {
    const answer = await this.request(spec);
    if (answer.status < 200 || answer.status > 299) throw await this.errorFor(answer, spec.what);
    return answer;
  }

  /**
   * Sends a request and returns the response with its body unread (for streaming downloads). The
   * caller must consume or cancel the body. Idempotent requests are retried like request().
   * `timeoutMs` covers only the wait for the headers; the caller guards the body.
   */
  async open(spec: RequestSpec): Promise<Response> {
    return this.#withRetries(
      spec,
      async (signal, disarm) => {
        const response = spec.method === 'GET' && !this.#customFetch ? await this.#getStreamed(spec, signal) : await this.#send(spec, signal);
        disarm(); // the body may take much longer than the headers; the caller guards it
        return response;
      },
      (r) => r.status,
      (r) => discardBody(r),
    );
  }

  /** A GET whose successful body stays a Node stream (stream-request.ts); never follows redirects. */
  async #getStreamed(spec: RequestSpec, signal: AbortSignal): Promise<Response> {
    const url = this.url(spec.path, spec.query);
    const headers = await this.#headers(url, {});
    const started = Date.now();
    try {
      const response = await getStreamed(url, { headers, signal, followRedirects: 0, errorBodyBytes: this.limits.errorBodyBytes });
      this.#log(`GET ${url.pathname}${url.search} -> ${response.status} in ${Date.now() - started} ms`);
      return response;
    } catch (error) {
      throw this.#networkError(error, spec, url, spec.signal);
    }
  }

  /**
   * GET of a URL outside the service (a signed storage URL): no key, no extra headers, the
   * query is never logged (it is the signature). Redirects are followed: nothing secret is attached.
   */
  async openExternal(url: string, what: string, signal?: AbortSignal): Promise<Response> {
    const target = new URL(url);
    const spec: RequestSpec = { method: 'GET', path: target.pathname, what, ...(signal ? { signal } : {}) };
    return this.#withRetries(
      spec,
      async (attemptSignal, disarm) => {
        const started = Date.now();
        try {
          const response = this.#customFetch
            ? await this.#fetch(target, { method: 'GET', redirect: 'follow', signal: attemptSignal })
            : await getStreamed(target, { headers: new Headers(), signal: attemptSignal, followRedirects: 5, errorBodyBytes: this.limits.errorBodyBytes });
          disarm();
          this.#log(`GET ${target.origin}${target.pathname} (signed URL) -> ${response.status} in ${Date.now() - started} ms`);
          return response;
        } catch (error) {
          throw this.#networkError(error, spec, target, signal);
        }
      },
      (r) => r.status,
      (r) => discardBody(r),
    );
  }

  async #send(spec: RequestSpec, signal: AbortSignal): Promise<Response> {
    const url = this.url(spec.path, spec.query);
    let body: string | AsyncIterable<Uint8Array> | undefined;
    let extra: Record<string, string> = { Accept: 'application/json', ...(spec.headers ?? {}) };
    if (spec.json !== undefined) {
      body = stringifyJsonExact(spec.json);
      extra['Content-Type'] = 'application/json';
    } else if (spec.form) {
      // The multipart boundary and Content-Type come from the form-data library, never by hand.
      const multipart = await spec.form();
      body = multipart.body;
      extra = { ...extra, ...multipart.headers };
    }
    const headers = await this.#headers(url, extra);
    const started = Date.now();
    try {
      // Bodies (uploads, JSON) go over node:http (stream-request.ts says why); tests that inject
      // fetch see every request. Requests without a body keep fetch, which asks for compressed answers.
      const response =
        body !== undefined && (typeof body !== 'string' || !this.#customFetch)
          ? await sendStreamed(url, { method: spec.method, headers, body, signal })
          : await this.#fetch(url, { method: spec.method, headers, body: body ?? null, redirect: 'manual', signal });
      this.#log(`${spec.method} ${url.pathname}${url.search} -> ${response.status} in ${Date.now() - started} ms`);
      return response;
    } catch (error) {
      throw this.#networkError(error, spec, url, spec.signal);
    }
  }

  #networkError(error: unknown, spec: RequestSpec, url: URL, callerSignal: AbortSignal | undefined): ServiceError {
    if (error instanceof ServiceError) return error;
    if (callerSignal?.aborted) return new ServiceError('cancelled', `Cancelled: ${spec.what}.`, { cause: error, retryable: false });
    const name = error instanceof Error ? error.name : '';
    if (name === 'TimeoutError' || (error instanceof DOMException && error.name === 'TimeoutError') || isTimeoutReason(error)) {
      const ms = spec.timeoutMs ?? this.#timeoutMs;
      const seconds = ms % 1000 === 0 ? String(ms / 1000) : (ms / 1000).toFixed(1);
      this.#log(`${spec.method} ${url.origin}${url.pathname} -> no answer within ${seconds} s`);
      return new NoAnswerError(
        `${url.origin} did not answer ${spec.what} (${url.pathname}) within ${seconds} s: the server stopped answering or never started to. Check that it runs and is not overloaded, then try again.`,
        error,
      );
    }
    const code = errorCode(error);
    const reason = name === 'TimeoutError' || name === 'AbortError' ? 'timed out' : code ? `failed (${code})` : 'failed';
    this.#log(`${spec.method} ${url.origin}${url.pathname} -> network error: ${reason}`);
    return new ServiceError(
      'network',
      `Could not reach ${url.origin} for ${spec.what}: the connection ${reason}. Check the server address and the network, then try again.`,
      {
        cause: error,
      },
    );
  }

  /**
   * Runs `attempt` with a per-attempt timeout, retrying idempotent requests on 5xx and network
   * errors (never on 4xx: a 429 means an inactive subscription, which a retry cannot fix). The
   * attempt calls `disarm` once the part the timeout guards has arrived.
   */
  async #withRetries<T>(
    spec: RequestSpec,
    attempt: (signal: AbortSignal, disarm: () => void) => Promise<T>,
    statusOf: (t: T) => number,
    discard?: (t: T) => unknown,
  ): Promise<T> {
    const idempotent = spec.idempotent ?? (spec.method === 'GET' || spec.method === 'HEAD');
    const retries = idempotent ? this.#retry.retries : 0;
    // One notice per request (not per attempt) once it has waited limits.waitNoticeMs for an answer.
    const onWait = this.#onWait;
    const notice = onWait
      ? setTimeout(() => {
          const url = this.url(spec.path);
          onWait(`waiting for ${url.origin} to answer ${url.pathname}`);
        }, this.limits.waitNoticeMs)
      : null;
    try {
      return await this.#attempts(spec, attempt, statusOf, retries, discard);
    } finally {
      if (notice) clearTimeout(notice);
    }
  }

  async #attempts<T>(
    spec: RequestSpec,
    attempt: (signal: AbortSignal, disarm: () => void) => Promise<T>,
    statusOf: (t: T) => number,
    retries: number,
    discard?: (t: T) => unknown,
  ): Promise<T> {
    for (let n = 0; ; n += 1) {
      if (spec.signal?.aborted) throw new ServiceError('cancelled', `Cancelled: ${spec.what}.`, { retryable: false });
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new DOMException(`${spec.what} timed out`, 'TimeoutError')), spec.timeoutMs ?? this.#timeoutMs);
      const disarm = (): void => clearTimeout(timer);
      const signal = spec.signal ? AbortSignal.any([spec.signal, timeout.signal]) : timeout.signal;
      let result: T;
      try {
        result = await attempt(signal, disarm);
      } catch (error) {
        const failure = error instanceof ServiceError ? error : this.#networkError(error, spec, this.url(spec.path), spec.signal);
        if (failure.kind !== 'network' || !failure.retryable || n >= retries) throw failure;
        await this.#pause(n, spec);
        continue;
      } finally {
        disarm();
      }
      if (isRetryableStatus(statusOf(result)) && n < retries) {
        await discard?.(result);
        await this.#pause(n, spec);
        continue;
      }
      return result;
    }
  }

  async #pause(attempt: number, spec: RequestSpec): Promise<void> {
    const delay = backoffDelay(attempt, { baseMs: this.#retry.baseMs, maxMs: this.#retry.maxMs, random: this.#retry.random });
    this.#log(`retrying ${spec.method} ${spec.path} in ${delay} ms (attempt ${attempt + 2})`);
    try {
      await this.#retry.sleep(delay, spec.signal);
    } catch (error) {
      throw new ServiceError('cancelled', `Cancelled: ${spec.what}.`, { cause: error, retryable: false });
    }
  }

  /** The ServiceError for a non-2xx answer, with the server's own reason when it gave one (key redacted). */
  async errorFor(answer: HttpAnswer, what: string): Promise<ServiceError> {
    const { kind, message } = messageForStatus(answer.status, what);
    const reason = serverReason(jsonOf(answer), await this.providedKey().catch(() => null));
    const full = reason ? `${message} The server said: ${reason}` : message;
    return new ServiceError(kind, full, { status: answer.status });
  }

  /** Scrubs the key from a text that may have come from outside. */
  async redact(text: string): Promise<string> {
    return redactSecret(text, await this.providedKey().catch(() => null));
  }
}

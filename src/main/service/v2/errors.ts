// Comfy API v2's error envelope, worded as Flowdeck words v1's failures (errors.ts): a rejected
// workflow names each node and input; credits, keys and plans say what to do; a 429 here means
// "back off and retry after Retry-After" (never v1's inactive subscription); an Idempotency-Key
// already used is its own error, for the submit policy to act on (jobs/submit-v2.ts).
import { messageForStatus, redactSecret, ServiceError, WorkflowRejectedError } from '../errors';
import { jsonOf, type HttpAnswer } from '../http';
import { rejectionFromBody } from '../responses';
import { envelopeSchema } from './wire';

/** Longest server message kept in an error. */
const MAX_REASON = 400;
/** A Retry-After the client waits at most (a server asking for more is asked again after this). */
const MAX_RETRY_AFTER_MS = 60_000;
const DEFAULT_RETRY_AFTER_MS = 2_000;

/** A 429 (queue_full, deployment_not_ready, rate_limited, too_many_streams): retry after `retryAfterMs`. */
export class RetryLaterError extends ServiceError {
  constructor(
    readonly code: string,
    message: string,
    readonly retryAfterMs: number,
  ) {
    super('server', message, { status: 429, retryable: true });
    this.name = 'RetryLaterError';
  }
}

/** 422 idempotency_key_reuse: a request with this key reached the server before; it is never run again. */
export class IdempotencyKeyReuseError extends ServiceError {
  constructor(message: string) {
    super('protocol', message, { status: 422, retryable: false });
    this.name = 'IdempotencyKeyReuseError';
  }
}

function clip(text: string): string {
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}...` : text;
}

/** Retry-After in ms (seconds, or an HTTP date), bounded; the default when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number {
  const raw = headers.get('retry-after');
  if (raw === null) return DEFAULT_RETRY_AFTER_MS;
  const seconds = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) * 1000 : Date.parse(raw) - now;
  if (!Number.isFinite(seconds)) return DEFAULT_RETRY_AFTER_MS;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, seconds));
}

/** The description's example shape `{"12": [{field, reason}]}` in the shape responses.ts reads (ComfyUI's, which the proxy forwards). */
function comfyNodeErrors(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null) return {};
  const out: Record<string, unknown> = {};
  for (const [nodeId, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!Array.isArray(value)) {
      out[nodeId] = value;
      continue;
    }
    const errors = value.map((item: unknown) => {
      const e = (typeof item === 'object' && item !== null ? item : {}) as { field?: unknown; reason?: unknown; message?: unknown };
      const field = typeof e.field === 'string' ? e.field : null;
      const reason = typeof e.reason === 'string' ? e.reason : typeof e.message === 'string' ? e.message : 'invalid';
      return { type: reason, message: reason, details: field ?? '', extra_info: field ? { input_name: field } : {} };
    });
    out[nodeId] = { errors, class_type: null };
  }
  return out;
}

/** The error for a non-2xx v2 answer to `what`. */
export function v2ErrorFor(answer: HttpAnswer, what: string, secret: string | null): ServiceError {
  const parsed = envelopeSchema.safeParse(jsonOf(answer));
  const { kind, message } = messageForStatus(answer.status, what);
  if (!parsed.success) return new ServiceError(kind, message, { status: answer.status });
  const { code, details } = parsed.data.error;
  const reason = clip(redactSecret(parsed.data.error.message ?? code, secret));
  switch (code) {
    case 'invalid_workflow': {
      const body = { error: { type: code, message: reason, details: '' }, node_errors: comfyNodeErrors(details?.node_errors) };
      return rejectionFromBody(body, answer.status, secret) ?? new WorkflowRejectedError(code, reason, [], answer.status);
    }
    case 'workflow_format_ui':
      return new WorkflowRejectedError(
        code,
        'this is an editor (UI) workflow; the server takes the API format. Convert it first (flowdeck convert) or export it in API format.',
        [],
        answer.status,
      );
    case 'missing_asset':
      return new WorkflowRejectedError(code, `an input file it refers to is not on the server (${reason}).`, [], answer.status);
    case 'idempotency_key_reuse':
      return new IdempotencyKeyReuseError(
        `The server had already received a request for ${what} under this Idempotency-Key, and never runs one twice. The server said: ${reason}`,
      );
    case 'queue_full':
    case 'deployment_not_ready':
    case 'rate_limited':
    case 'too_many_streams': {
      const wait = retryAfterMs(answer.headers);
      const words =
        code === 'deployment_not_ready' ? 'the deployment is starting' : code === 'queue_full' ? "the server's queue is full" : 'the server asks to slow down';
      return new RetryLaterError(
        code,
        `The server cannot take ${what} yet: ${words} (HTTP 429, retry after ${Math.ceil(wait / 1000)} s). The server said: ${reason}`,
        wait,
      );
    }
    case 'insufficient_credits':
      return new ServiceError('insufficient_credits', `${messageForStatus(402, what).message} The server said: ${reason}`, {
        status: answer.status,
        retryable: false,
      });
    case 'deployment_stopped':
      return new ServiceError(
        'forbidden',
        `The deployment is stopped, so it refused ${what}; it needs its operator to start it again. The server said: ${reason}`,
        { status: answer.status, retryable: false },
      );
    default:
      if (answer.status === 403) {
        return new ServiceError(
          'forbidden',
          `The server refused ${what} (HTTP 403): the account or its plan may not allow API use. The server said: ${reason}`,
          { status: 403, retryable: false },
        );
      }
      return new ServiceError(kind, `${message} The server said: ${reason}`, { status: answer.status });
  }
}

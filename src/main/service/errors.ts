// Typed failures of the service, each with a plain-language message that says what happened and
// what to do. Messages never contain the API key: they are built from fixed text and server
// fields, and `redactSecret` scrubs anything that came from outside.
import type { NodeErrorDetail } from './types';

export type ServiceErrorKind =
  | 'invalid_workflow' // 400, or a 200 body carrying `error`
  | 'unauthorized' // 401
  | 'insufficient_credits' // 402
  | 'subscription_inactive' // 429
  | 'not_found' // 404
  | 'forbidden' // 403 (for example an expired signed URL or a cross-origin refusal)
  | 'server' // 5xx
  | 'network' // connection refused, reset, DNS, timeout
  | 'protocol' // the server answered something this client cannot understand
  | 'too_large' // the server sent more than the cap for what was asked (limits.ts)
  | 'cancelled'; // the caller aborted

export class ServiceError extends Error {
  readonly kind: ServiceErrorKind;
  readonly status: number | null;
  /** Whether retrying the same idempotent request may succeed. */
  readonly retryable: boolean;

  constructor(kind: ServiceErrorKind, message: string, options: { status?: number | null; retryable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ServiceError';
    this.kind = kind;
    this.status = options.status ?? null;
    this.retryable = options.retryable ?? (kind === 'server' || kind === 'network');
  }
}

/** A rejected workflow: names each failing node, its class, the input and the reason. */
export class WorkflowRejectedError extends ServiceError {
  readonly errorType: string;
  readonly nodeErrors: NodeErrorDetail[];

  constructor(errorType: string, summary: string, nodeErrors: NodeErrorDetail[], status: number | null) {
    super('invalid_workflow', formatRejection(summary, nodeErrors), { status, retryable: false });
    this.name = 'WorkflowRejectedError';
    this.errorType = errorType;
    this.nodeErrors = nodeErrors;
  }
}

function formatRejection(summary: string, nodeErrors: NodeErrorDetail[]): string {
  const lines = [`The server rejected the workflow: ${summary}`];
  for (const e of nodeErrors) {
    const where = `node ${e.nodeId}${e.classType ? ` (${e.classType})` : ''}`;
    const input = e.inputName ? `, input "${e.inputName}"` : '';
    const reason = [e.message, e.details].filter((s) => s && s !== e.inputName).join(': ');
    lines.push(`  - ${where}${input}: ${reason}`);
  }
  if (nodeErrors.length > 0) lines.push('Fix the inputs named above and submit again.');
  return lines.join('\n');
}

/** Plain-language message for an HTTP status with no more specific body. */
export function messageForStatus(status: number, what: string): { kind: ServiceErrorKind; message: string } {
  switch (status) {
    case 400:
      return { kind: 'invalid_workflow', message: `The server refused ${what} as invalid (HTTP 400). Check the request and try again.` };
    case 401:
      return {
        kind: 'unauthorized',
        message: `The server did not accept the API key for ${what} (HTTP 401). Set a valid key (flowdeck login, FLOWDECK_API_KEY, or the app's API key field).`,
      };
    case 402:
      return {
        kind: 'insufficient_credits',
        message: `The account has insufficient credits for ${what} (HTTP 402). Add credits on the platform, then try again.`,
      };
    case 403:
      return { kind: 'forbidden', message: `The server refused ${what} (HTTP 403).` };
    case 404:
      return { kind: 'not_found', message: `The server has no such resource for ${what} (HTTP 404).` };
    case 429:
      return {
        kind: 'subscription_inactive',
        message: `The subscription is not active, so the server refused ${what} (HTTP 429). Renew the subscription on the platform; retrying will not help until then.`,
      };
    case 501:
      // "Not Implemented": a web server that does not speak this protocol (a static file server,
      // a proxy), not a busy workflow server; retrying will not change that.
      return {
        kind: 'protocol',
        message: `The server does not implement ${what} (HTTP 501): it is not a workflow server, or not a compatible one. Check the server address.`,
      };
    default:
      if (status >= 500)
        return { kind: 'server', message: `The server failed while handling ${what} (HTTP ${status}). It may be overloaded; try again shortly.` };
      return { kind: 'protocol', message: `Unexpected answer to ${what} (HTTP ${status}).` };
  }
}

/** Removes every occurrence of `secret` from `text`. */
export function redactSecret(text: string, secret: string | null | undefined): string {
  if (!secret) return text;
  return text.split(secret).join('[redacted]');
}

/** `value` with every string in it (at any depth) scrubbed of `secret`: for decoded server messages. */
export function redactDeep<T>(value: T, secret: string | null | undefined): T {
  if (!secret) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.includes(secret) ? redactSecret(v, secret) : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v)) out[k] = walk(inner);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

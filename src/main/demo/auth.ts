// Who may talk to the demo service. Cloud: API keys (X-API-Key on REST, token= on /ws), each with
// an account state (402 / 429 on submit). Local: no key, but the local server's cross-origin guard.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AccountState } from './types';

export class Accounts {
  private readonly states = new Map<string, AccountState>();
  /** The instance's main key (cloud), null locally. */
  readonly primaryKey: string | null;

  constructor(flavour: 'cloud' | 'local', apiKey?: string) {
    this.primaryKey = flavour === 'cloud' ? (apiKey ?? `demo-${randomBytes(18).toString('base64url')}`) : null;
    if (this.primaryKey !== null) this.states.set(this.primaryKey, 'active');
  }

  setState(key: string, state: AccountState): void {
    if (!key) throw new Error('an account key must not be empty');
    this.states.set(key, state);
  }

  stateOf(key: string | null): AccountState | undefined {
    return key === null ? undefined : this.states.get(key);
  }

  keys(): string[] {
    return [...this.states.keys()];
  }
}

/** The X-API-Key header's value, or null. */
export function headerKey(req: IncomingMessage): string | null {
  const raw = req.headers['x-api-key'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined || value === '' ? null : value;
}

function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * The local server's guard against web pages posting to 127.0.0.1: when Host is a loopback name
 * and an Origin is present whose host:port differs, the request is refused (403, empty body).
 */
export function isCrossOriginRefused(req: IncomingMessage): boolean {
  const host = req.headers.host;
  const origin = req.headers.origin;
  if (!host || !origin) return false;
  const hostLower = host.toLowerCase();
  let hostname: string;
  try {
    hostname = new URL(`http://${hostLower}`).hostname;
  } catch {
    return false;
  }
  if (!isLoopbackHostname(hostname)) return false;
  let originNetloc = '';
  try {
    originNetloc = new URL(origin).host.toLowerCase();
  } catch {
    originNetloc = '';
  }
  return originNetloc !== hostLower;
}

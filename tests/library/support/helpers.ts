// Shared pieces of the library tests: a service client with quick retries, a file walker, and the
// expected date folder of a time (computed here independently of the library's own code).
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { ServiceClient } from '../../../src/main/service/client';
import type { ServerKind } from '../../../src/main/service/types';

export function quickClient(kind: ServerKind, baseUrl: string, key: string | null, retries = 1): ServiceClient {
  return new ServiceClient({ kind, baseUrl }, { apiKey: () => key, retry: { retries, baseMs: 5, maxMs: 20 } });
}

/** Every regular file under `dir`, as "/"-separated paths relative to it, sorted. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(relative(dir, full).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

export function dateFolder(ms: number): string {
  const d = new Date(ms);
  return [d.getFullYear(), String(d.getMonth() + 1).padStart(2, '0'), String(d.getDate()).padStart(2, '0')].join('/');
}

/** The library's quick retry policy for tests. */
export const QUICK_RETRY = { baseMs: 20, maxMs: 60, maxAttempts: 4 };

// Shared pieces of the library tests: a service client with quick retries, a file walker (the one
// in tests/support), and the expected date folder of a time (computed here independently of the
// library's own code).
import { ServiceClient } from '@main/service/client';
import type { ServerKind } from '@main/service/types';

export { filesUnder } from '../../support/files';

export function quickClient(kind: ServerKind, baseUrl: string, key: string | null, retries = 1): ServiceClient {
  return new ServiceClient({ kind, baseUrl }, { apiKey: () => key, retry: { retries, baseMs: 5, maxMs: 20 } });
}

export function dateFolder(ms: number): string {
  const d = new Date(ms);
  return [d.getFullYear(), String(d.getMonth() + 1).padStart(2, '0'), String(d.getDate()).padStart(2, '0')].join('/');
}

/** The library's quick retry policy for tests. */
export const QUICK_RETRY = { baseMs: 20, maxMs: 60, maxAttempts: 4 };

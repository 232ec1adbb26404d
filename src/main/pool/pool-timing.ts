// The pool's timings, with the environment's overrides in seconds (malformed values are ignored):
// FLOWDECK_POOL_RECONCILE_AFTER: how long jobs a server had started wait for it to answer again
// (counted from when it stopped answering) before they run on another server; default 60 s.
// FLOWDECK_POOL_PROBE_INTERVAL: between probes of a server out of rotation; default 2 s.
import { DEFAULT_PROBE_INTERVAL_MS, DEFAULT_RECONCILE_AFTER_MS, type PoolOptions } from './server-pool';

function seconds(env: NodeJS.ProcessEnv, name: string): number | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? n * 1000 : null;
}

export function poolTiming(env: NodeJS.ProcessEnv = process.env): Required<Pick<PoolOptions, 'reconcileAfterMs' | 'probeIntervalMs'>> {
  return {
    reconcileAfterMs: seconds(env, 'FLOWDECK_POOL_RECONCILE_AFTER') ?? DEFAULT_RECONCILE_AFTER_MS,
    probeIntervalMs: seconds(env, 'FLOWDECK_POOL_PROBE_INTERVAL') ?? DEFAULT_PROBE_INTERVAL_MS,
  };
}

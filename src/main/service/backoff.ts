// Exponential backoff with jitter, the one formula of every retry: REST retries, the socket's
// reconnects, a submit's resends, library downloads and hot-folder files.
// Randomness and sleeping are injectable so tests can check the schedule without waiting.

export interface BackoffPolicy {
  /** Delay scale of the first retry (attempt 0). */
  baseMs: number;
  /** Upper bound of any single delay. */
  maxMs: number;
  /** Lower bound of any single delay (0 = pure "full jitter"). */
  minMs?: number;
  /**
   * The share of the ceiling that is never jittered away: 0 is "full jitter" (any delay up to the
   * ceiling), 0.5 "equal jitter" (at least half of it, for retries that must not come back early).
   */
  keep?: number;
  /** Returns a number in [0, 1); Math.random by default. */
  random?: () => number;
}

/**
 * "Full jitter" (AWS architecture blog): a uniformly random delay in [0, min(max, base * 2^attempt)),
 * raised to `minMs` so a reconnect loop can never spin with near-zero delays.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy): number {
  const random = policy.random ?? Math.random;
  const exponent = Math.min(Math.max(0, attempt), 30); // 2^30 already dwarfs any sane cap
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  const r = Math.min(Math.max(random(), 0), 1);
  const keep = Math.min(Math.max(policy.keep ?? 0, 0), 1);
  return Math.max(policy.minMs ?? 0, Math.floor(ceiling * (keep + (1 - keep) * r)));
}

export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Sleeps `ms`; rejects with the signal's reason as soon as the signal aborts. */
export const sleep: SleepFn = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Retry policy of idempotent REST requests. */
export interface RetryPolicy {
  /** Retries after the first attempt (so attempts = retries + 1). */
  retries: number;
  baseMs: number;
  maxMs: number;
  random: () => number;
  sleep: SleepFn;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 3,
  baseMs: 250,
  maxMs: 4_000,
  random: Math.random,
  sleep,
};

export function resolveRetryPolicy(partial: Partial<RetryPolicy> | undefined): RetryPolicy {
  return { ...DEFAULT_RETRY_POLICY, ...(partial ?? {}) };
}

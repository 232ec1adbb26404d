// How a hot folder reacts to a failure: an account problem (401, 402, 429) pauses the whole folder,
// because every other file would fail the same way; a network failure or a server error (5xx) is
// retried with exponential backoff up to the folder's attempt limit; anything else (the server
// rejected the workflow, the file cannot be read) fails that file at once with its reason.
import { backoffDelay } from '@main/service/backoff';
import { ServiceError } from '@main/service/errors';
import type { RetryPolicyConfig } from './config';
import type { PauseKind } from './types';

export type Reaction =
  { kind: 'pause'; pauseKind: Exclude<PauseKind, 'user'>; reason: string } | { kind: 'retry'; reason: string } | { kind: 'fail'; reason: string };

export function reactionTo(error: unknown): Reaction {
  const reason = error instanceof Error ? error.message : String(error);
  if (error instanceof ServiceError) {
    switch (error.kind) {
      case 'unauthorized':
      case 'insufficient_credits':
      case 'subscription_inactive':
        return { kind: 'pause', pauseKind: error.kind, reason };
      case 'network':
      case 'server':
        return { kind: 'retry', reason };
      default:
        return error.retryable ? { kind: 'retry', reason } : { kind: 'fail', reason };
    }
  }
  return { kind: 'fail', reason };
}

/** Delay before attempt `attempt + 1` (attempt counts from 1): exponential, capped, with jitter in [50%, 100%]. */
export function retryDelay(attempt: number, policy: RetryPolicyConfig, random: () => number = Math.random): number {
  return backoffDelay(attempt - 1, { baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs, keep: 0.5, random });
}

/** Plain words for a pause, saying what fixes it. */
export function pauseExplanation(kind: Exclude<PauseKind, 'user'>, serverText: string): string {
  // The pool's own words say which servers and why; it resumes when one answers again.
  if (kind === 'servers_down') return `${serverText} The folder resumes by itself when one answers again.`;
  const what =
    kind === 'unauthorized'
      ? 'The server did not accept the API key. Set a valid key'
      : kind === 'insufficient_credits'
        ? 'The account has run out of credits. Add credits on the platform'
        : 'The subscription is not active. Renew it on the platform';
  return `${what}; the folder then resumes by itself (or press Resume). (${serverText})`;
}

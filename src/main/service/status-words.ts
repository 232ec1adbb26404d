// The job status vocabulary (PROTOCOL.md "Job status vocabulary"): every word the cloud service,
// its documentation and the reference clients use, matched case-insensitively. A word this client
// does not know is kept as sent (so the user sees it) and treated as still in flight.
import type { JobPhase, JobStatusReading } from './types';

const WORDS: ReadonlyMap<string, JobPhase> = new Map<string, JobPhase>([
  // queued, not yet running (the cloud's raw states of /api/job/{id}/status, and the plain
  // word of /api/jobs)
  ['pending', 'pending'],
  ['waiting_to_dispatch', 'pending'],
  ['submitted', 'pending'],
  ['queued_limited', 'pending'],
  ['queued_waiting', 'pending'],
  ['allocated', 'pending'],
  ['preparing', 'pending'],
  ['pending_execution', 'pending'],
  // running: `executed` means the outputs are being stored, `erroring` that the failure is being
  // recorded; a requested cancel is still running until the server confirms it
  ['in_progress', 'running'],
  ['executing', 'running'],
  ['executed', 'running'],
  ['erroring', 'running'],
  ['cancel_requested', 'running'],
  ['cancel_pending', 'running'],
  ['cancelling_preparing', 'running'],
  // finished
  ['completed', 'succeeded'],
  ['success', 'succeeded'],
  ['failed', 'failed'],
  ['error', 'failed'],
  ['non_retryable_error', 'failed'],
  ['retryable_error', 'failed'],
  ['lost', 'failed'],
  ['cancelled', 'cancelled'],
  ['canceled', 'cancelled'],
]);

/** Every word of the vocabulary, lower case. */
export const KNOWN_STATUS_WORDS: readonly string[] = [...WORDS.keys()];

/** Classifies a server's status word. */
export function classifyStatusWord(raw: string): JobStatusReading {
  const phase = WORDS.get(raw.trim().toLowerCase());
  if (phase === undefined) return { phase: 'running', raw, known: false };
  return { phase, raw, known: true };
}

export function isTerminalPhase(phase: JobPhase): boolean {
  return phase === 'succeeded' || phase === 'failed' || phase === 'cancelled';
}

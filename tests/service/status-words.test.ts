import { describe, expect, it } from 'vitest';
import { classifyStatusWord, isTerminalPhase, KNOWN_STATUS_WORDS } from '@main/service/status-words';

// Every word of PROTOCOL.md "Job status vocabulary", with the phase it must map to.
// /api/job/{id}/status's raw states and /api/jobs' plain words are in the last section ("The
// cloud service as its public documentation describes it").
const EXPECTED: Record<string, string> = {
  pending: 'pending',
  waiting_to_dispatch: 'pending',
  submitted: 'pending',
  queued_limited: 'pending',
  queued_waiting: 'pending',
  allocated: 'pending',
  // Documented as a queued state (the machine is being prepared), not a running one.
  preparing: 'pending',
  pending_execution: 'pending',
  in_progress: 'running',
  executing: 'running',
  executed: 'running',
  erroring: 'running',
  cancel_requested: 'running',
  cancel_pending: 'running',
  cancelling_preparing: 'running',
  completed: 'succeeded',
  success: 'succeeded',
  failed: 'failed',
  error: 'failed',
  non_retryable_error: 'failed',
  retryable_error: 'failed',
  lost: 'failed',
  cancelled: 'cancelled',
  canceled: 'cancelled',
};

describe('classifyStatusWord', () => {
  it('knows every word of the vocabulary', () => {
    for (const [word, phase] of Object.entries(EXPECTED)) expect(classifyStatusWord(word)).toEqual({ phase, raw: word, known: true });
    expect([...KNOWN_STATUS_WORDS].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it('every documented raw state and plain word is known, in its group', () => {
    const groups: Record<string, string[]> = {
      pending: ['submitted', 'queued_limited', 'queued_waiting', 'allocated', 'preparing', 'pending_execution', 'pending'],
      running: ['executing', 'executed', 'erroring', 'cancel_requested', 'cancel_pending', 'cancelling_preparing', 'in_progress'],
      succeeded: ['success', 'completed'],
      failed: ['error', 'non_retryable_error', 'lost', 'failed'],
      cancelled: ['cancelled'],
    };
    for (const [phase, words] of Object.entries(groups)) {
      for (const word of words) expect(classifyStatusWord(word), word).toMatchObject({ phase, known: true });
    }
  });

  it('is case-insensitive and keeps the raw word as sent', () => {
    expect(classifyStatusWord('COMPLETED')).toEqual({ phase: 'succeeded', raw: 'COMPLETED', known: true });
    expect(classifyStatusWord('In_Progress')).toEqual({ phase: 'running', raw: 'In_Progress', known: true });
    expect(classifyStatusWord('Canceled')).toEqual({ phase: 'cancelled', raw: 'Canceled', known: true });
    expect(classifyStatusWord(' success ')).toMatchObject({ phase: 'succeeded', known: true });
  });

  it('keeps unknown words and treats them as running', () => {
    expect(classifyStatusWord('warming_up')).toEqual({ phase: 'running', raw: 'warming_up', known: false });
    expect(classifyStatusWord('')).toEqual({ phase: 'running', raw: '', known: false });
  });

  it('terminal phases', () => {
    expect(['pending', 'running', 'succeeded', 'failed', 'cancelled'].map((p) => isTerminalPhase(p as never))).toEqual([false, false, true, true, true]);
  });
});

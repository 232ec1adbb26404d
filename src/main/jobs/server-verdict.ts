// Asking the server how a job we are unsure of stands (after a restart of Flowdeck, a status
// answer of "not found", or an unclassified local status): ended, still in flight, unknown to the
// server, or not answerable right now. Reads only; what to do with the answer is the tracker's.
import { ServiceError } from '../service/errors';
import type { JobHistory, ServiceApi } from '../service/ports';
import type { JobStatusReading } from '../service/types';
import { describe } from './tracker-errors';
import { isTerminalPhase } from './types';

/** What the server says about a job we are unsure of (used by reconcile and lost-job checks). */
export type Verdict =
  | { kind: 'ended'; reading: JobStatusReading; history: JobHistory | null }
  | { kind: 'in_flight'; reading: JobStatusReading }
  | { kind: 'unknown' }
  | { kind: 'unreachable'; reason: string };

/**
 * Whether the server knows a job, and how it stands. The cloud's status endpoint answers 404 for
 * a job it does not know. A local server has no status endpoint (the client derives it), so a job
 * there is known only if its queue or its history holds it.
 */
export async function askServer(api: ServiceApi, promptId: string): Promise<Verdict> {
  let reading: JobStatusReading;
  try {
    reading = await api.getJobStatus(promptId);
  } catch (error) {
    if (isNotFound(error)) return api.capabilities.jobStatus === 'queue-and-history' ? askLocal(api, promptId, null) : { kind: 'unknown' };
    return { kind: 'unreachable', reason: describe(error) };
  }
  if (isTerminalPhase(reading.phase)) return { kind: 'ended', reading, history: null };
  if (api.capabilities.jobStatus === 'queue-and-history') return askLocal(api, promptId, reading);
  return { kind: 'in_flight', reading };
}

async function askLocal(api: ServiceApi, promptId: string, reading: JobStatusReading | null): Promise<Verdict> {
  try {
    // Queue first, then history: a job leaving the queue meanwhile is in history by then.
    const queue = await api.getQueue();
    if (queue.running.some((e) => e.promptId === promptId)) {
      return { kind: 'in_flight', reading: reading?.phase === 'running' ? reading : { phase: 'running', raw: 'in_progress', known: true } };
    }
    if (queue.pending.some((e) => e.promptId === promptId)) {
      return { kind: 'in_flight', reading: reading?.phase === 'pending' ? reading : { phase: 'pending', raw: 'pending', known: true } };
    }
    const history = await api.getHistory(promptId);
    if (history && isTerminalPhase(history.reading.phase)) return { kind: 'ended', reading: history.reading, history };
    if (history) return { kind: 'in_flight', reading: history.reading };
    return { kind: 'unknown' };
  } catch (error) {
    return { kind: 'unreachable', reason: describe(error) };
  }
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ServiceError && error.kind === 'not_found';
}

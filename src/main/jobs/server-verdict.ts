// The one verdict on a job we are unsure of (after a restart, a lost socket, a submit whose answer
// was lost, a status answer of "not found", or an unclassified local status): ended, still in
// flight, unknown to the server, or not answerable right now. Used by the job tracker and by hot
// folders alike. Reads only; what to do with the answer is the caller's.
//
// One policy, by the server's capabilities:
// - a status endpoint (cloud): its answer decides; 404 means the server does not know the job; an
//   ended job's history is read for its outputs and error (null when it cannot be read yet);
// - queue and history (local, no status endpoint): the queue first, then the history, so a job
//   leaving the queue meanwhile is in the history by the time the history is read.
import { ServiceError } from '@main/service/errors';
import type { JobHistory, ServiceApi } from '@main/service/ports';
import type { JobStatusReading } from '@main/service/types';
import { describeError } from '@shared/describe-error';
import { isTerminalPhase } from './types';

export type Verdict =
  | { kind: 'ended'; reading: JobStatusReading; history: JobHistory | null }
  | { kind: 'in_flight'; reading: JobStatusReading }
  | { kind: 'unknown' }
  /** `error` as thrown (a hot folder decides from it whether to pause); `reason` in words. */
  | { kind: 'unreachable'; reason: string; error: unknown };

/** Whether the server knows a job, and how it stands. Never throws. */
export async function askServer(api: ServiceApi, promptId: string): Promise<Verdict> {
  try {
    return api.capabilities.jobStatus === 'status-endpoint' ? await askStatusEndpoint(api, promptId) : await askQueueAndHistory(api, promptId);
  } catch (error) {
    return { kind: 'unreachable', reason: describeError(error), error };
  }
}

async function askStatusEndpoint(api: ServiceApi, promptId: string): Promise<Verdict> {
  let reading: JobStatusReading;
  try {
    reading = await api.getJobStatus(promptId);
  } catch (error) {
    if (isNotFound(error)) return { kind: 'unknown' };
    throw error;
  }
  if (!isTerminalPhase(reading.phase)) return { kind: 'in_flight', reading };
  // The status decides the end; the history only adds outputs and error details.
  return { kind: 'ended', reading, history: await api.getHistory(promptId).catch(() => null) };
}

async function askQueueAndHistory(api: ServiceApi, promptId: string): Promise<Verdict> {
  const queue = await api.getQueue();
  if (queue.running.some((e) => e.promptId === promptId)) return { kind: 'in_flight', reading: { phase: 'running', raw: 'in_progress', known: true } };
  if (queue.pending.some((e) => e.promptId === promptId)) return { kind: 'in_flight', reading: { phase: 'pending', raw: 'pending', known: true } };
  const history = await api.getHistory(promptId);
  if (history && isTerminalPhase(history.reading.phase)) return { kind: 'ended', reading: history.reading, history };
  if (history) return { kind: 'in_flight', reading: history.reading };
  return { kind: 'unknown' };
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ServiceError && error.kind === 'not_found';
}

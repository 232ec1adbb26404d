// What the server says about a prompt id the journal holds: after a crash (or a submit whose answer
// was lost) the hot folder asks before doing anything, so a file the server already has is never
// sent again. The cloud answers its status endpoint (404 = unknown); a local server has none, so
// its queue and its history are read (queue first: a job leaving the queue meanwhile is in the
// history by the time the history is read).
import { ServiceError } from '../service/errors';
import type { JobHistory, ServiceApi } from '../service/ports';
import type { JobStatusReading } from '../service/types';
import { isTerminalPhase } from '../jobs/types';

export type ServerVerdict =
  | { kind: 'ended'; reading: JobStatusReading; history: JobHistory | null }
  | { kind: 'in_flight'; reading: JobStatusReading }
  | { kind: 'unknown' }
  | { kind: 'unreachable'; error: unknown };

export async function askServer(api: ServiceApi, promptId: string): Promise<ServerVerdict> {
  try {
    if (api.capabilities.jobStatus === 'status-endpoint') {
      let reading: JobStatusReading;
      try {
        reading = await api.getJobStatus(promptId);
      } catch (error) {
        if (error instanceof ServiceError && error.kind === 'not_found') return { kind: 'unknown' };
        throw error;
      }
      if (!isTerminalPhase(reading.phase)) return { kind: 'in_flight', reading };
      return { kind: 'ended', reading, history: await api.getHistory(promptId).catch(() => null) };
    }
    const queue = await api.getQueue();
    if (queue.running.some((e) => e.promptId === promptId)) return { kind: 'in_flight', reading: { phase: 'running', raw: 'in_progress', known: true } };
    if (queue.pending.some((e) => e.promptId === promptId)) return { kind: 'in_flight', reading: { phase: 'pending', raw: 'pending', known: true } };
    const history = await api.getHistory(promptId);
    if (history && isTerminalPhase(history.reading.phase)) return { kind: 'ended', reading: history.reading, history };
    if (history) return { kind: 'in_flight', reading: history.reading };
    return { kind: 'unknown' };
  } catch (error) {
    return { kind: 'unreachable', error };
  }
}

// What a job's end recovers from the server's history: the outputs and error detail that a socket
// gap (or a status-only ending) may have hidden. The history is read a few times, since a local
// server may write it a moment after the job's last event.
import type { JobHistory } from '@main/service/ports';
import type { JobPhase } from '@main/service/types';
import { toJobError } from './error-explanations';
import type { JobJournal } from './job-journal';
import type { JobState } from './job-state';
import { describeError } from '@shared/describe-error';
import type { TrackerHost } from './tracker-host';

const HISTORY_ATTEMPTS = 3;

/** How a history read waits between attempts, gives up when the tracker shuts down, and warns. */
export type HistoryReadContext = Pick<TrackerHost, 'api' | 'pollIntervalMs' | 'isDisposed' | 'sleep' | 'warn'>;

/** History of a job that has just ended; a local server may write it a moment after the last event. */
export async function fetchHistory(context: HistoryReadContext, promptId: string): Promise<JobHistory | null> {
  for (let attempt = 1; attempt <= HISTORY_ATTEMPTS && !context.isDisposed(); attempt += 1) {
    try {
      const history = await context.api.getHistory(promptId);
      if (history) return history;
    } catch (error) {
      context.warn(`Could not read the history of job ${promptId}: ${describeError(error)}`);
      return null;
    }
    if (attempt < HISTORY_ATTEMPTS) await context.sleep(Math.min(500, Math.ceil(context.pollIntervalMs / 4)));
  }
  return null;
}

/** Adds the history's outputs to the job (journaling the new ones) and, for a failure, its error detail. */
export function mergeHistory(job: JobState, history: JobHistory | null, phase: JobPhase, journal: JobJournal): void {
  if (!history || job.ended) return;
  const added = job.addOutputs(history.outputs);
  if (added.length > 0) journal.write(job.promptId, (store) => store.addOutputs(job.promptId, added));
  if (phase === 'failed' && history.error && (!job.error || job.error.exceptionType === null)) {
    job.error = toJobError({
      exceptionType: history.error.exceptionType,
      message: history.error.exceptionMessage,
      nodeId: history.error.nodeId,
      nodeType: history.error.nodeType,
      traceback: history.error.traceback,
    });
  }
}

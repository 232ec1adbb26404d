// Why a wait for a job's end stopped without the job ending (a timeout, the tracker shut down,
// the server went silent), worded so the user knows the job itself was not cancelled.
import type { JobSnapshot } from './types';

/** Waiting stopped; the job was NOT cancelled and may still finish on the server. */
export class JobTimeoutError extends Error {
  readonly promptId: string;
  readonly timeoutMs: number;
  constructor(promptId: string, timeoutMs: number) {
    super(`Stopped waiting for job ${promptId} after ${formatDuration(timeoutMs)}. The job was not cancelled: it may still be running on the server.`);
    this.name = 'JobTimeoutError';
    this.promptId = promptId;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The server answered nothing about the job (socket gone, every poll failing) for the tracker's
 * `unreachableAfterMs`. The job was not cancelled; `snapshot` is what was last known of it.
 */
export class ServerUnreachableError extends Error {
  readonly promptId: string;
  readonly snapshot: JobSnapshot;
  constructor(snapshot: JobSnapshot, afterMs: number, reason: string) {
    super(`The server stopped answering: no word about job ${snapshot.promptId} for ${formatDuration(afterMs)} (${reason}).`);
    this.name = 'ServerUnreachableError';
    this.promptId = snapshot.promptId;
    this.snapshot = snapshot;
  }
}

export class TrackerDisposedError extends Error {
  constructor(promptId: string) {
    super(`Stopped following job ${promptId} because the job tracker was shut down. The job was not cancelled.`);
    this.name = 'TrackerDisposedError';
  }
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  return seconds < 120 ? `${Number(seconds.toFixed(1))} s` : `${Number((seconds / 60).toFixed(1))} min`;
}

// What a job card says, in plain words: the state (never the server's protocol words such as
// "execution_success"), where the job came from, when it started and how long it took.
import type { JobSnapshotView } from '@shared/ipc/contract';

export type JobOrigin = 'window' | 'cli' | 'hot-folder' | 'other';

export const ORIGIN_WORDS: Record<JobOrigin, string> = {
  window: 'this window',
  cli: 'command line',
  'hot-folder': 'hot folder',
  other: 'another client',
};

/**
 * The state word after "Status:". A job that ended "cancelled" without anyone here asking to stop
 * it was stopped by the server's side (it shut down or restarted, or another client cancelled it):
 * that is "stopped", not "cancelled".
 */
export function stateWord(job: Pick<JobSnapshotView, 'phase'>, stopRequested: boolean): string {
  switch (job.phase) {
    case 'pending':
      return 'waiting in the queue';
    case 'running':
      return 'running';
    case 'succeeded':
      return 'done';
    case 'failed':
      return 'failed';
    case 'cancelled':
      return stopRequested ? 'cancelled' : 'stopped';
  }
}

/** Why a job ended "cancelled", in one sentence. */
export function cancelledReason(stopRequested: boolean): string {
  return stopRequested
    ? 'The job was cancelled.'
    : 'The server stopped this job before it finished: it may have shut down or restarted, or another client cancelled it. Run it again when the server is back.';
}

/** "12 s", "3 min 04 s", "1 h 02 min". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

// Made once: toLocaleTimeString with options builds a new formatter on every call, and the Jobs
// panel formats each card's start time whenever a card updates.
const timeFormat = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit' });
const dateFormat = new Intl.DateTimeFormat();

/** The start time: the clock time today, else the date and time. */
export function formatStart(at: number, now: number = Date.now()): string {
  const date = new Date(at);
  const time = timeFormat.format(date);
  return new Date(now).toDateString() === date.toDateString() ? time : `${dateFormat.format(date)} ${time}`;
}

/** Midnight (local time) of the day `at` falls on: a value that moves once a day. */
export function startOfDay(at: number): number {
  const date = new Date(at);
  date.setHours(0, 0, 0, 0);
  return date.getTime();
}

/** How long the job ran (finished) or has been going (in flight). */
export function jobDuration(job: Pick<JobSnapshotView, 'submittedAt' | 'finishedAt'>, now: number): string {
  return formatDuration((job.finishedAt ?? now) - job.submittedAt);
}

/**
 * The time a job took, waiting and running apart ("waited 12 s · ran 38 s"; in flight "waiting
 * 4 s", "waited 4 s · running 9 s"). Without a start time (a job journaled before it was kept, a
 * job that never ran) it is one figure: "took 50 s" or "for 50 s".
 */
export function waitAndRun(job: Pick<JobSnapshotView, 'submittedAt' | 'finishedAt' | 'startedAt' | 'phase'>, now: number): string {
  const end = job.finishedAt ?? now;
  const started = job.startedAt ?? null;
  if (started === null || started < job.submittedAt) {
    if (job.phase === 'pending') return `waiting ${formatDuration(now - job.submittedAt)}`;
    return `${job.finishedAt !== null ? 'took' : 'for'} ${jobDuration(job, now)}`;
  }
  const waited = formatDuration(started - job.submittedAt);
  return job.finishedAt !== null ? `waited ${waited} · ran ${formatDuration(end - started)}` : `waited ${waited} · running ${formatDuration(end - started)}`;
}

/**
 * Overall progress that moves with the steps of the running node: the nodes done plus the running
 * node's share of its steps, of all nodes. So "Overall" never says 0 while the step bar says 5 of 8.
 */
export function overallProgress(job: Pick<JobSnapshotView, 'phase' | 'nodesDone' | 'nodesTotal' | 'progress' | 'overall'>): { share: number; text: string } {
  const total = job.nodesTotal !== null && job.nodesTotal > 0 ? job.nodesTotal : null;
  if (job.phase === 'succeeded') return { share: 1, text: total !== null ? `${total} of ${total} nodes` : '100%' };
  if (total === null) {
    const share = Math.max(0, Math.min(1, job.overall ?? 0));
    return { share, text: `${Math.round(share * 100)}%` };
  }
  const done = Math.min(total, job.nodesDone);
  const step = job.phase === 'running' && job.progress && job.progress.max > 0 ? Math.min(1, job.progress.value / job.progress.max) : 0;
  const share = Math.min(1, (done + (done < total ? step : 0)) / total);
  const text =
    job.phase === 'running' && step > 0 ? `${Math.round(share * 100)}% · node ${Math.min(total, done + 1)} of ${total}` : `${done} of ${total} nodes`;
  return { share, text };
}

/**
 * The progress caption a node sent, unless it contradicts the step bar: a caption is sent once
 * (e.g. "step 1 of 20") while the bar moves on, so a caption naming a step count is left out when
 * the bar shows the steps.
 */
export function progressCaption(job: Pick<JobSnapshotView, 'progressText' | 'progress' | 'phase'>): string | null {
  const text = job.progressText?.trim();
  if (!text || job.phase !== 'running') return null;
  if (job.progress && job.progress.max > 0 && /\b\d+\s*(\/|of)\s*\d+\b|\d+\s*%/i.test(text)) return null;
  return text;
}

export type StateFilter = 'all' | 'active' | 'finished' | 'failed';

export function matchesState(job: Pick<JobSnapshotView, 'phase'>, filter: StateFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'active':
      return job.phase === 'pending' || job.phase === 'running';
    case 'finished':
      return job.phase === 'succeeded' || job.phase === 'failed' || job.phase === 'cancelled';
    case 'failed':
      return job.phase === 'failed' || job.phase === 'cancelled';
  }
}

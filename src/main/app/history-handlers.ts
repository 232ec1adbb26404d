// history.list: past jobs a page at a time, newest first.
// - "app": this app's job journal (every job a window, the CLI or a hot folder sent), with the
//   workflow exactly as submitted.
// - "server": the active server's own history, whoever ran the jobs. Local servers answer
//   /api/history (ServiceApi.listHistory); a server whose capabilities list jobs with GET /api/jobs
//   (the cloud) is read a page at a time, with each job's detail for its workflow and outputs.
import type { CallHandlers, HistoryEntryView, HistoryPageView } from '../../shared/ipc/contract';
import { stringifyJsonExact } from '../../shared/json';
import type { JobRecord, JobStore } from '../jobs/job-store';
import type { JobDetail } from '../service/job-list';
import type { ServerHistoryEntry } from '../service/ports';
import type { ProfileSession } from './session';

export interface HistoryHandlerContext {
  requireJobs(): JobStore;
  requireSession(): Promise<ProfileSession>;
}

/** The server's history is read up to this many entries back (it has no offset on every version). */
const MAX_SERVER_DEPTH = 1000;

function outputsOf(files: readonly { filename: string; subfolder: string; type: string; node: string; key: string }[]): HistoryEntryView['outputs'] {
  return files.map((o) => ({ filename: o.filename, subfolder: o.subfolder, type: o.type, node: o.node, key: o.key }));
}

export function recordEntry(record: JobRecord): HistoryEntryView {
  return {
    promptId: record.promptId,
    label: record.workflowName ?? 'workflow',
    phase: record.phase === 'submitting' ? 'pending' : record.phase,
    submittedAt: record.createdAt,
    finishedAt: record.endedAt,
    errorMessage: record.error?.message ?? null,
    outputs: outputsOf(record.outputs),
    workflowJson: record.workflow ? stringifyJsonExact(record.workflow) : null,
    origin: record.origin,
  };
}

/** A server history entry, with what this app's journal knows of the same job (its name, origin). */
export function serverEntry(entry: ServerHistoryEntry, known: JobRecord | null): HistoryEntryView {
  const phase = entry.history.reading.phase;
  return {
    promptId: entry.promptId,
    label: known?.workflowName ?? 'workflow',
    phase: phase === 'succeeded' || phase === 'failed' || phase === 'cancelled' ? phase : 'running',
    submittedAt: entry.startedAt ?? known?.createdAt ?? null,
    finishedAt: entry.endedAt ?? known?.endedAt ?? null,
    errorMessage: entry.history.error ? entry.history.error.exceptionMessage : null,
    outputs: outputsOf(entry.history.outputs),
    workflowJson: entry.workflow ? stringifyJsonExact(entry.workflow) : known?.workflow ? stringifyJsonExact(known.workflow) : null,
    // Not in this app's journal: another client (the editor's web page, a script) ran it.
    origin: known ? known.origin : 'other',
  };
}

const LIST_STATUS_PHASE: Record<JobDetail['status'], HistoryEntryView['phase']> = {
  pending: 'pending',
  in_progress: 'running',
  completed: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** A job of the cloud's GET /api/jobs/{id}, with what this app's journal knows of the same job. */
export function jobListEntry(job: JobDetail, known: JobRecord | null): HistoryEntryView {
  const workflow = job.workflow ?? known?.workflow ?? null;
  return {
    promptId: job.id,
    label: known?.workflowName ?? 'workflow',
    phase: LIST_STATUS_PHASE[job.status],
    submittedAt: job.createdAt ?? known?.createdAt ?? null,
    finishedAt: job.endedAt ?? known?.endedAt ?? null,
    errorMessage: job.errorMessage,
    outputs: outputsOf(job.outputs),
    workflowJson: workflow ? stringifyJsonExact(workflow) : null,
    origin: known ? known.origin : 'other',
  };
}

export function createHistoryHandlers(ctx: HistoryHandlerContext): Pick<CallHandlers, 'history.list'> {
  return {
    'history.list': async ({ source, offset, limit }): Promise<HistoryPageView> => {
      const store = ctx.requireJobs();
      if (source === 'app') {
        // One more than asked tells whether another page follows.
        const records = await store.list({ offset, limit: limit + 1 });
        return { source, entries: records.slice(0, limit).map(recordEntry), offset, hasMore: records.length > limit, note: null };
      }
      const session = await ctx.requireSession();
      if (session.api.capabilities.jobList === 'jobs-endpoint') {
        const page = await session.api.listJobs({ offset, limit, sortBy: 'create_time', sortOrder: 'desc' });
        // The list carries no workflow nor outputs: each job's detail does ("Open in Run" needs both).
        const details = await Promise.all(page.jobs.map((job) => session.api.getJob(job.id)));
        const entries = await Promise.all(details.map(async (job) => jobListEntry(job, await store.get(job.id))));
        return { source, entries, offset, hasMore: page.pagination.hasMore, note: null };
      }
      if (!session.api.listHistory) {
        return { source, entries: [], offset, hasMore: false, note: "This server's history cannot be listed; the app's own history lists the jobs sent from here." };
      }
      if (offset >= MAX_SERVER_DEPTH) return { source, entries: [], offset, hasMore: false, note: `Only the newest ${MAX_SERVER_DEPTH} jobs of the server's history are listed.` };
      const depth = Math.min(MAX_SERVER_DEPTH, offset + limit + 1);
      const all = await session.api.listHistory(depth);
      const page = all.slice(offset, offset + limit);
      const entries = await Promise.all(page.map(async (entry) => serverEntry(entry, await store.get(entry.promptId))));
      return { source, entries, offset, hasMore: all.length > offset + limit && offset + limit < MAX_SERVER_DEPTH, note: null };
    },
  };
}

// history.list: past jobs a page at a time, newest first.
// - "app": this app's job journal (every job a window, the CLI or a hot folder sent), with the
//   workflow exactly as submitted.
// - "server": the active server's own jobs, whoever sent them, read a page at a time with
//   ServiceApi.listJobs (the cloud's GET /api/jobs; a local server's queue and history in the same
//   shape; a v2 surface's GET /api/v2/jobs), each with its workflow and outputs for "Open in Run".
//   A job the server keeps as the editor graph it was made from (Comfy API v2's `save` format) is
//   converted as any UI file, with the server's node definitions where it has them.
import type { CallHandlers, HistoryEntryView, HistoryPageView } from '@shared/ipc/contract';
import { stringifyJsonExact, type JsonObject } from '@shared/json';
import type { JobRecord, JobStore } from '@main/jobs/job-store';
import type { JobDetail } from '@main/service/job-list';
import type { NodeDefinitions } from '@main/service/object-info';
import type { Workflow } from '@main/service/types';
import { readWorkflowValue } from '@main/workflow/workflow-reading';
import type { ProfileSession } from './session';

/** How long "Open in Run" of an editor graph waits for the node definitions to convert it. */
const DEFINITIONS_WAIT_MS = 5000;

/**
 * The runnable workflow of a job the server kept as an editor graph: converted with the server's
 * definitions, or (a server without any) from what the file itself says of its widgets; null when
 * it cannot be converted.
 */
export async function workflowOfEditorGraph(graph: JsonObject, definitions: () => Promise<NodeDefinitions | null>): Promise<Workflow | null> {
  const empty: NodeDefinitions = new Map();
  const known = async (): Promise<NodeDefinitions> => (await definitions()) ?? empty;
  const reading = await readWorkflowValue(graph, { cached: () => null, wait: known });
  return reading.kind === 'workflow' ? reading.workflow : null;
}

export interface HistoryHandlerContext {
  requireJobs(): JobStore;
  requireSession(): Promise<ProfileSession>;
}

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

const LIST_STATUS_PHASE: Record<JobDetail['status'], HistoryEntryView['phase']> = {
  pending: 'pending',
  in_progress: 'running',
  completed: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
};

/**
 * A job of the server's list with its detail, with what this app's journal knows of the same job
 * (its name, origin, and the workflow as sent when the server does not say, as for a queued job).
 */
export function jobListEntry(job: JobDetail, known: JobRecord | null, converted: Workflow | null = null): HistoryEntryView {
  const workflow = job.workflow ?? converted ?? known?.workflow ?? null;
  return {
    promptId: job.id,
    label: known?.workflowName ?? 'workflow',
    phase: LIST_STATUS_PHASE[job.status],
    submittedAt: job.createdAt ?? known?.createdAt ?? null,
    finishedAt: job.endedAt ?? known?.endedAt ?? null,
    errorMessage: job.errorMessage,
    outputs: outputsOf(job.outputs),
    workflowJson: workflow ? stringifyJsonExact(workflow) : null,
    // Not in this app's journal: another client (the editor's web page, a script) sent it.
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
      const page = await session.api.listJobs({ offset, limit, sortBy: 'create_time', sortOrder: 'desc' });
      // "Open in Run" needs each job's workflow and outputs: a local server's list carries them (its
      // history holds them), the cloud's list does not, and each job's GET /api/jobs/{id} does.
      const details = page.details ?? (await Promise.all(page.jobs.map((job) => session.api.getJob(job.id))));
      const definitions = () => session.definitionsWithin(DEFINITIONS_WAIT_MS);
      const entries = await Promise.all(
        details.map(async (job) => {
          const converted = !job.workflow && job.editorGraph ? await workflowOfEditorGraph(job.editorGraph, definitions) : null;
          return jobListEntry(job, await store.get(job.id), converted);
        }),
      );
      const note =
        !page.pagination.hasMore && page.depthLimit !== undefined
          ? `Only the newest ${page.depthLimit} finished jobs of the server's history are listed.`
          : null;
      return { source, entries, offset, hasMore: page.pagination.hasMore, note };
    },
  };
}

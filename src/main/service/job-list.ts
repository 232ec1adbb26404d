// One shape for "the server's jobs", whatever the server: the cloud's GET /api/jobs and
// /api/jobs/{id} are read as they are; a local server has no job list, so its /api/history and
// /api/queue are turned into the same shape here (filtered, sorted and paged on this side).
// Every answer is untrusted: checked with zod, unknown fields ignored, server text redacted.
import { z } from 'zod';
import { isJsonObject, type JsonObject } from '@shared/json';
import { redactSecret } from './errors';
import { collectHistoryOutputs } from './outputs';
import { parseHistoryEntry } from './responses';
import { classifyStatusWord } from './status-words';
import type { FileRef, JobPhase, OutputFile, QueueEntry, QueueSnapshot, Workflow } from './types';

/** The plain words of GET /api/jobs. */
export const JOB_LIST_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
export type JobListStatus = (typeof JOB_LIST_STATUSES)[number];
/** The most jobs one page may hold (the cloud refuses more). */
export const MAX_JOB_PAGE = 1000;
/**
 * How deep a local server's /api/history is read for a list (its newest finished jobs): the
 * server answers the whole history otherwise, each entry with its workflow, on every page.
 */
export const MAX_LOCAL_HISTORY_DEPTH = 1000;

export interface JobListQuery {
  /** Only jobs in these states (all when absent or empty). */
  status?: JobListStatus[];
  sortBy?: 'create_time' | 'execution_time';
  sortOrder?: 'asc' | 'desc';
  offset?: number;
  /** 1..1000; default 100. */
  limit?: number;
}

export interface JobSummary {
  id: string;
  status: JobListStatus;
  /** The server's own status word (a raw state on some servers). */
  raw: string;
  errorMessage: string | null;
  /** Epoch milliseconds (the cloud sends seconds; converted here); null when the server does not say. */
  createdAt: number | null;
  startedAt: number | null;
  endedAt: number | null;
  outputsCount: number;
  preview: FileRef | null;
  workflowId: string | null;
}

export interface JobDetail extends JobSummary {
  workflow: Workflow | null;
  /**
   * The editor graph the job was made from, when the server keeps that instead of the API prompt
   * (Comfy API v2's workflow `format: "save"`): the app converts it as any UI file.
   */
  editorGraph?: JsonObject | null;
  outputs: OutputFile[];
  updatedAt: number | null;
}

export interface JobPage {
  jobs: JobSummary[];
  pagination: { offset: number; limit: number; total: number; hasMore: boolean };
  /**
   * The same jobs, in the same order, with their workflow and outputs, when reading the list gave
   * them anyway (a local server's /api/history holds both). Absent on the cloud, whose list
   * carries neither: getJob() reads them.
   */
  details?: JobDetail[];
  /**
   * Set when a local server's history was read only this many entries deep and held at least
   * that many: older finished jobs are not in the list (nor in `total`).
   */
  depthLimit?: number;
}

const PHASE_TO_STATUS: Record<JobPhase, JobListStatus> = {
  pending: 'pending',
  running: 'in_progress',
  succeeded: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

export function listStatusOf(word: string): JobListStatus {
  return PHASE_TO_STATUS[classifyStatusWord(word).phase];
}

/** The query normalised: a limit within 1..1000, a non-negative offset, descending creation time by default. */
export function normaliseQuery(query: JobListQuery): Required<JobListQuery> {
  const limit = Math.min(MAX_JOB_PAGE, Math.max(1, Math.floor(query.limit ?? 100)));
  const offset = Math.max(0, Math.floor(query.offset ?? 0));
  return { status: query.status ?? [], sortBy: query.sortBy ?? 'create_time', sortOrder: query.sortOrder ?? 'desc', offset, limit };
}

/** The query string of GET /api/jobs. */
export function jobListParams(query: JobListQuery): Record<string, string> {
  const q = normaliseQuery(query);
  const params: Record<string, string> = { sort_by: q.sortBy, sort_order: q.sortOrder, offset: String(q.offset), limit: String(q.limit) };
  if (q.status.length > 0) params.status = q.status.join(',');
  return params;
}

// ---------------------------------------------------------------- the cloud's answers

const finite = z.number().finite();
const fileRefSchema = z.object({ filename: z.string().min(1), subfolder: z.string().nullish(), type: z.string().nullish() });

const cloudJobSchema = z.object({
  id: z.string().min(1),
  status: z.string(),
  execution_error: z.unknown().optional(),
  create_time: finite.nullish(),
  execution_start_time: finite.nullish(),
  execution_end_time: finite.nullish(),
  outputs_count: finite.nullish(),
  preview_output: z.unknown().optional(),
  workflow_id: z.string().nullish(),
});

const cloudPageSchema = z.object({
  jobs: z.array(z.unknown()),
  pagination: z.object({ offset: finite, limit: finite, total: finite, has_more: z.boolean() }),
});

const cloudDetailSchema = cloudJobSchema.extend({
  workflow: z.unknown().optional(),
  outputs: z.unknown().optional(),
  update_time: finite.nullish(),
});

function errorMessageOf(value: unknown, secret: string | null): string | null {
  if (typeof value === 'string' && value !== '') return redactSecret(value, secret);
  if (isJsonObject(value)) {
    const type = typeof value.exception_type === 'string' ? value.exception_type : '';
    const message = typeof value.exception_message === 'string' ? value.exception_message : typeof value.message === 'string' ? value.message : '';
    const text = [type, message].filter((s) => s !== '').join(': ');
    return text === '' ? null : redactSecret(text, secret);
  }
  return null;
}

function fileRefOf(value: unknown): FileRef | null {
  const parsed = fileRefSchema.safeParse(value);
  if (!parsed.success) return null;
  return { filename: parsed.data.filename, subfolder: parsed.data.subfolder ?? '', type: parsed.data.type || 'output' };
}

function cloudSummary(job: z.infer<typeof cloudJobSchema>, secret: string | null): JobSummary {
  return {
    id: job.id,
    status: listStatusOf(job.status),
    raw: job.status,
    errorMessage: errorMessageOf(job.execution_error, secret),
    // create_time is in seconds, the execution times in milliseconds (as documented).
    createdAt: job.create_time == null ? null : Math.round(job.create_time * 1000),
    startedAt: job.execution_start_time ?? null,
    endedAt: job.execution_end_time ?? null,
    outputsCount: job.outputs_count ?? 0,
    preview: fileRefOf(job.preview_output),
    workflowId: job.workflow_id ?? null,
  };
}

/** GET /api/jobs's answer; null when it is not one. A malformed job is skipped, not fatal. */
export function parseCloudJobPage(body: unknown, secret: string | null): JobPage | null {
  const page = cloudPageSchema.safeParse(body);
  if (!page.success) return null;
  const jobs: JobSummary[] = [];
  for (const item of page.data.jobs) {
    const job = cloudJobSchema.safeParse(item);
    if (job.success) jobs.push(cloudSummary(job.data, secret));
  }
  const p = page.data.pagination;
  return { jobs, pagination: { offset: p.offset, limit: p.limit, total: p.total, hasMore: p.has_more } };
}

/** GET /api/jobs/{id}'s answer; null when it is not one. */
export function parseCloudJobDetail(body: unknown, secret: string | null): JobDetail | null {
  const parsed = cloudDetailSchema.safeParse(body);
  if (!parsed.success) return null;
  const job = parsed.data;
  const outputs = collectHistoryOutputs(job.outputs);
  return {
    ...cloudSummary(job, secret),
    workflow: isJsonObject(job.workflow) ? job.workflow : null,
    outputs,
    updatedAt: job.update_time == null ? null : Math.round(job.update_time * 1000),
  };
}

// ---------------------------------------------------------------- a local server's history and queue

const historyPromptSchema = z.tuple([z.unknown(), z.string(), z.unknown(), z.unknown()]).rest(z.unknown());
const localEntrySchema = z.object({
  prompt: z.unknown().optional(),
  status: z.object({ messages: z.array(z.unknown()).nullish() }).nullish(),
});
const timedMessageSchema = z.tuple([z.string(), z.object({ timestamp: finite.optional() }).passthrough()]).rest(z.unknown());

/** What a local history entry says beyond its status and outputs; a part it lacks is null. */
export interface HistoryEntryDetails {
  /** The workflow as the server ran it (the `prompt` tuple's third item), exact. */
  workflow: Workflow | null;
  /** From the execution_start and execution_success / _error / _interrupted messages (epoch ms). */
  startedAt: number | null;
  endedAt: number | null;
  /** extra_data.create_time when the server wrote one, else the start. */
  createdAt: number | null;
}

function historyEntryDetails(entry: unknown): HistoryEntryDetails {
  const raw = localEntrySchema.safeParse(entry);
  if (!raw.success) return { workflow: null, startedAt: null, endedAt: null, createdAt: null };
  let startedAt: number | null = null;
  let endedAt: number | null = null;
  for (const message of raw.data.status?.messages ?? []) {
    const m = timedMessageSchema.safeParse(message);
    if (!m.success || m.data[1].timestamp === undefined) continue;
    const [type, data] = m.data;
    if (type === 'execution_start') startedAt = data.timestamp ?? null;
    if (type === 'execution_success' || type === 'execution_error' || type === 'execution_interrupted') endedAt = data.timestamp ?? null;
  }
  const prompt = historyPromptSchema.safeParse(raw.data.prompt);
  // Only the creation time is read from extra_data: older servers keep the API key in there.
  const extra = prompt.success && isJsonObject(prompt.data[3]) ? prompt.data[3] : null;
  const createdAt = extra && typeof extra.create_time === 'number' && Number.isFinite(extra.create_time) ? extra.create_time : startedAt;
  const workflow = prompt.success && isJsonObject(prompt.data[2]) ? prompt.data[2] : null;
  return { workflow, startedAt, endedAt, createdAt };
}

/** One local history entry as a job detail; null when it cannot be read. */
export function localHistoryJob(id: string, entry: unknown, secret: string | null): JobDetail | null {
  const parsed = parseHistoryEntry(entry, secret);
  if (!parsed || !localEntrySchema.safeParse(entry).success) return null;
  const { workflow, startedAt, endedAt, createdAt } = historyEntryDetails(entry);
  const first = parsed.outputs[0];
  return {
    id,
    status: PHASE_TO_STATUS[parsed.reading.phase],
    raw: parsed.reading.raw,
    errorMessage: parsed.reading.errorMessage ?? null,
    createdAt,
    startedAt,
    endedAt,
    outputsCount: parsed.outputs.length,
    preview: first ? { filename: first.filename, subfolder: first.subfolder, type: first.type } : null,
    workflowId: null,
    workflow,
    outputs: parsed.outputs,
    updatedAt: endedAt,
  };
}

/** A job still in a local queue, with its workflow and creation time when the entry has them. */
export function localQueuedJob(entry: QueueEntry, status: 'pending' | 'in_progress'): JobDetail {
  return {
    id: entry.promptId,
    status,
    raw: status,
    errorMessage: null,
    createdAt: entry.createdAt ?? null,
    startedAt: null,
    endedAt: null,
    outputsCount: 0,
    preview: null,
    workflowId: null,
    workflow: entry.workflow ?? null,
    outputs: [],
    updatedAt: null,
  };
}

function summaryOf(job: JobDetail): JobSummary {
  const { workflow: _w, outputs: _o, updatedAt: _u, ...summary } = job;
  return summary;
}

/**
 * How many of a local server's newest finished jobs (/api/history?max_items=N) a query needs. The
 * History view's order (newest created first, every state) needs only as many as the page reaches,
 * plus one to tell whether another page follows: the server keeps its history in the order the
 * jobs ended, which is the order they were created unless one was sent to the front of the queue
 * (then it may show a page later than its creation time says). Any other order or filter needs all
 * of them, up to MAX_LOCAL_HISTORY_DEPTH.
 */
export function localHistoryDepth(query: JobListQuery): number {
  const q = normaliseQuery(query);
  const newestFirst = q.sortBy === 'create_time' && q.sortOrder === 'desc' && q.status.length === 0;
  return newestFirst ? Math.min(MAX_LOCAL_HISTORY_DEPTH, q.offset + q.limit + 1) : MAX_LOCAL_HISTORY_DEPTH;
}

/**
 * The local server's jobs as one page: its queue (running, then pending, newest) and its history
 * (`{id: entry}` oldest first, the newest `depth` entries asked for), filtered, sorted and paged
 * like the cloud's list, with each job's detail (the history entry holds its workflow and outputs).
 */
export function localJobPage(
  history: Record<string, unknown>,
  queue: QueueSnapshot,
  query: JobListQuery,
  secret: string | null,
  depth: number = MAX_LOCAL_HISTORY_DEPTH,
): JobPage {
  const q = normaliseQuery(query);
  // Order of arrival: history (oldest first), then running, then pending; a job the history
  // already holds is not listed twice.
  const all: JobDetail[] = [];
  const seen = new Set<string>();
  for (const [id, entry] of Object.entries(history)) {
    const job = localHistoryJob(id, entry, secret);
    if (job && !seen.has(id)) {
      seen.add(id);
      all.push(job);
    }
  }
  const add = (e: (typeof queue.running)[number], status: 'in_progress' | 'pending'): void => {
    if (seen.has(e.promptId)) return;
    seen.add(e.promptId);
    all.push(localQueuedJob(e, status));
  };
  for (const e of queue.running) add(e, 'in_progress');
  for (const e of queue.pending) add(e, 'pending');

  const wanted = new Set(q.status);
  const kept = all.map((job, arrival) => ({ job, arrival })).filter(({ job }) => wanted.size === 0 || wanted.has(job.status));
  const key = (job: JobDetail, arrival: number): number => {
    if (q.sortBy === 'execution_time') return job.startedAt !== null && job.endedAt !== null ? job.endedAt - job.startedAt : -1;
    // Without a creation time the order of arrival decides (queued jobs are the newest).
    return job.createdAt ?? Number.MAX_SAFE_INTEGER - (all.length - arrival);
  };
  kept.sort((a, b) => key(a.job, a.arrival) - key(b.job, b.arrival) || a.arrival - b.arrival);
  if (q.sortOrder === 'desc') kept.reverse();
  const total = kept.length;
  const details = kept.slice(q.offset, q.offset + q.limit).map(({ job }) => job);
  const page: JobPage = {
    jobs: details.map(summaryOf),
    pagination: { offset: q.offset, limit: q.limit, total, hasMore: q.offset + details.length < total },
    details,
  };
  // Only a read as deep as allowed cuts the list short; a shallower one was as deep as the query needed.
  if (depth >= MAX_LOCAL_HISTORY_DEPTH && Object.keys(history).length >= MAX_LOCAL_HISTORY_DEPTH) page.depthLimit = MAX_LOCAL_HISTORY_DEPTH;
  return page;
}

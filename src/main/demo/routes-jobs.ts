// The cloud's job list as its public documentation describes it: GET /api/jobs with status,
// sort_by, sort_order, offset and limit (at most 1000), answering {jobs, pagination}, and
// GET /api/jobs/{id} with the workflow, outputs, update_time and execution_meta. A caller sees
// only its own jobs. create_time is in seconds, the execution times in milliseconds.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ownerScope, type DemoCore, type RequestInfo } from './core';
import { sendCloudError, sendJson } from './http-util';
import type { Job } from './queue';

const PLAIN_WORDS = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
const MAX_LIMIT = 1000;
const DEFAULT_LIMIT = 100;

function plainStatus(job: Job): (typeof PLAIN_WORDS)[number] {
  switch (job.state) {
    case 'pending':
      return 'pending';
    case 'running':
      return 'in_progress';
    case 'success':
      return 'completed';
    case 'error':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
  }
}

function outputsOf(core: DemoCore, job: Job): Record<string, Record<string, unknown>> {
  return core.queue.historyOf(job.promptId)?.outputs ?? {};
}

function outputFiles(outputs: Record<string, Record<string, unknown>>): unknown[] {
  return Object.values(outputs).flatMap((output) =>
    Object.values(output).flatMap((value) => (Array.isArray(value) ? value.filter((f) => typeof f === 'object' && f !== null && 'filename' in f) : [])),
  );
}

function summary(core: DemoCore, job: Job): Record<string, unknown> {
  const files = outputFiles(outputsOf(core, job));
  return {
    id: job.promptId,
    status: plainStatus(job),
    execution_error: job.state === 'error' ? { exception_message: job.errorMessage ?? 'The job failed.' } : null,
    create_time: Math.floor(job.createdAt / 1000),
    execution_start_time: job.startedAt ?? null,
    execution_end_time: job.endedAt ?? null,
    outputs_count: files.length,
    preview_output: files[0] ?? null,
    workflow_id: null,
  };
}

function badRequest(res: ServerResponse, message: string): void {
  sendCloudError(res, 400, 'invalid_request', message);
}

function intParam(raw: string | null, fallback: number): number | null {
  if (raw === null) return fallback;
  return /^\d+$/.test(raw) ? Number(raw) : null;
}

export function getJobList(_req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): void {
  const q = info.url.searchParams;
  const statuses = (q.get('status') ?? '').split(',').filter((s) => s !== '');
  const unknown = statuses.find((s) => !(PLAIN_WORDS as readonly string[]).includes(s));
  if (unknown !== undefined) return badRequest(res, `Unknown status "${unknown}": use ${PLAIN_WORDS.join(', ')}.`);
  const sortBy = q.get('sort_by') ?? 'create_time';
  if (sortBy !== 'create_time' && sortBy !== 'execution_time') return badRequest(res, 'sort_by must be create_time or execution_time.');
  const sortOrder = q.get('sort_order') ?? 'desc';
  if (sortOrder !== 'asc' && sortOrder !== 'desc') return badRequest(res, 'sort_order must be asc or desc.');
  const offset = intParam(q.get('offset'), 0);
  const limit = intParam(q.get('limit'), DEFAULT_LIMIT);
  if (offset === null) return badRequest(res, 'offset must be a non-negative integer.');
  if (limit === null || limit < 1 || limit > MAX_LIMIT) return badRequest(res, `limit must be an integer from 1 to ${MAX_LIMIT}.`);

  const wanted = new Set(statuses);
  const jobs = core.queue.allJobs(ownerScope(core, info)).filter((j) => wanted.size === 0 || wanted.has(plainStatus(j)));
  const key = (j: Job): number =>
    sortBy === 'create_time' ? j.createdAt : j.startedAt !== undefined && j.endedAt !== undefined ? j.endedAt - j.startedAt : -1;
  // Stable: equal keys keep submit order (then reversed with it for desc).
  const sorted = jobs.map((job, i) => ({ job, i })).sort((a, b) => key(a.job) - key(b.job) || a.i - b.i);
  if (sortOrder === 'desc') sorted.reverse();
  const page = sorted.slice(offset, offset + limit).map(({ job }) => summary(core, job));
  sendJson(res, core.flavour, 200, {
    jobs: page,
    pagination: { offset, limit, total: sorted.length, has_more: offset + page.length < sorted.length },
  });
}

export function getJobOne(_req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): void {
  const job = core.queue.get(info.params.id ?? '');
  if (!job || job.owner !== info.key) return sendCloudError(res, 404, 'not_found', 'No job with this id.');
  const entry = core.queue.historyOf(job.promptId);
  sendJson(res, core.flavour, 200, {
    ...summary(core, job),
    workflow: job.prompt,
    outputs: outputsOf(core, job),
    update_time: Math.floor(job.updatedAt / 1000),
    execution_meta: entry?.meta ?? {},
  });
}

// A v2 Job in the shapes the rest of Flowdeck reads (types.ts, ports.ts, job-list.ts): its status
// as a JobStatusReading, its outputs as OutputFiles whose subfolder carries the asset id (so a
// download after a restart still knows which asset to ask for), its failure as history error.
import type { JobHistory } from '../ports';
import type { JobDetail } from '../job-list';
import type { JobPhase, JobStatusReading, OutputFile } from '../types';
import type { V2Job, V2Output } from './wire';
import { TERMINAL_STATUSES } from './wire';

/** The subfolder of an output that is a v2 asset: `asset:<id>`. */
export const ASSET_SUBFOLDER_PREFIX = 'asset:';

/**
 * How an uploaded v2 asset travels through Flowdeck's string-valued input paths (the run form,
 * --upload, a hot folder's journal): `core/ASSET:<id>`. The v2 client expands it into the
 * reference object `{"__type": "core/ASSET", "info": {"id": ...}}` when it submits.
 */
export const ASSET_INPUT_PREFIX = 'core/ASSET:';

const PHASES: Record<string, JobPhase> = {
  queued: 'pending',
  running: 'running',
  canceling: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  expired: 'failed',
  canceled: 'cancelled',
};

export function isTerminalStatus(status: string): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function readingOf(job: V2Job): JobStatusReading {
  const phase = PHASES[job.status];
  const reading: JobStatusReading = phase === undefined ? { phase: 'running', raw: job.status, known: false } : { phase, raw: job.status, known: true };
  if (job.status === 'expired') reading.errorMessage = 'The server no longer has this job (it expired, or the server restarted).';
  else if (job.error?.message) reading.errorMessage = job.error.message;
  return reading;
}

/** The output key a file goes under in v1's terms (images, video, audio, ...). */
function keyOf(output: V2Output): string {
  switch (output.type) {
    case 'image':
      return 'images';
    case 'video':
    case 'audio':
      return output.type;
    default:
      return output.type ? `${output.type}s` : 'files';
  }
}

export function outputFileOf(output: V2Output): OutputFile {
  return { filename: output.name || output.id, subfolder: ASSET_SUBFOLDER_PREFIX + output.id, type: 'output', node: output.node_id ?? '', key: keyOf(output) };
}

/** The asset id an output file or an uploaded input stands for, or null when it is not a v2 asset. */
export function assetIdOf(ref: { filename: string; subfolder: string }): string | null {
  if (ref.subfolder.startsWith(ASSET_SUBFOLDER_PREFIX)) return ref.subfolder.slice(ASSET_SUBFOLDER_PREFIX.length) || null;
  // An input this client uploaded, named as a workflow holds it (`core/ASSET:<id>`, uploadImage's answer).
  return ref.filename.startsWith(ASSET_INPUT_PREFIX) ? ref.filename.slice(ASSET_INPUT_PREFIX.length) || null : null;
}

export function historyOf(job: V2Job): JobHistory {
  const history: JobHistory = { reading: readingOf(job), outputs: (job.outputs ?? []).map(outputFileOf) };
  if (job.error && job.status === 'failed') {
    history.error = {
      exceptionType: job.error.code ?? 'node_execution_error',
      exceptionMessage: job.error.message ?? 'The job failed.',
      nodeId: job.error.node_id ?? null,
      nodeType: job.error.class_type ?? null,
      traceback: job.error.traceback ? job.error.traceback.split('\n') : [],
    };
  }
  return history;
}

function epoch(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : null;
}

const LIST_STATUS: Record<JobPhase, JobDetail['status']> = {
  pending: 'pending',
  running: 'in_progress',
  succeeded: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

export function detailOf(job: V2Job, workflow: JobDetail['workflow']): JobDetail {
  const reading = readingOf(job);
  const outputs = (job.outputs ?? []).map(outputFileOf);
  return {
    id: job.id,
    status: LIST_STATUS[reading.phase],
    raw: job.status,
    errorMessage: reading.errorMessage ?? null,
    createdAt: epoch(job.created_at),
    startedAt: epoch(job.started_at),
    endedAt: epoch(job.completed_at),
    outputsCount: outputs.length,
    preview: outputs[0] ?? null,
    workflowId: null,
    workflow,
    outputs,
    updatedAt: null,
  };
}

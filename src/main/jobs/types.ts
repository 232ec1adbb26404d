// What the job tracker tells the rest of the app about a job, and what the job journal keeps.
import type { ImageMime, JobPhase, OutputFile } from '@main/service/types';

/** A failed job, explained for a person; technical details kept for those who want them. */
export interface JobErrorInfo {
  /** The server's `exception_type` (cloud category or Python class name); null when none was given. */
  exceptionType: string | null;
  /** Plain-language explanation of what the type means and what to do. */
  explanation: string;
  /** The server's own message (exception_message or error_message), or ours when it gave none. */
  message: string;
  nodeId: string | null;
  nodeType: string | null;
  traceback: string[];
}

/** Per-node progress: `state` is running | finished | cached | error | pending, or the server's word. */
export interface NodeState {
  state: string;
  value: number;
  max: number;
}

export interface JobPreview {
  nodeId: string | null;
  mime: ImageMime;
  bytes: Uint8Array;
  receivedAt: number;
}

export interface JobSnapshot {
  promptId: string;
  phase: JobPhase;
  /**
   * The latest word about the job: the server's status value when it was polled, otherwise the
   * event that last moved it (e.g. `execution_start`), or ours (`lost`, `never_submitted`).
   */
  rawStatus: string;
  /** When the tracker began following the job (epoch ms). */
  trackedAt: number;
  /** When the job was first seen executing; null until then. */
  startedAt: number | null;
  endedAt: number | null;
  nodes: Record<string, NodeState>;
  currentNode: string | null;
  /** Node count of the workflow when known, else null. */
  nodesTotal: number | null;
  /** Nodes finished or served from cache (at most nodesTotal when that is known). */
  nodesDone: number;
  cachedNodes: string[];
  /** Latest progress text per node id (binary TEXT frames). */
  progressText: Record<string, string>;
  /** Only the latest preview is kept, so memory does not grow with long jobs. */
  latestPreview: JobPreview | null;
  outputs: OutputFile[];
  error: JobErrorInfo | null;
  workflowName: string | null;
  /**
   * Set while the server has answered nothing about the job (socket gone, polls failing) for longer
   * than the tracker's limit: its state is unknown. Polling goes on; the first answer clears it.
   */
  unreachable: { since: number; reason: string } | null;
  /** Where the job was started (this app's window, the CLI, a hot folder), when known. */
  origin?: JobOrigin | null;
}

/** Where a job was started: an app window, the command line, a hot folder, or another client. */
export type JobOrigin = 'window' | 'cli' | 'hot-folder' | 'other';

/** A job the journal keeps: phase `submitting` means it was recorded before being sent. */
export type StoredPhase = JobPhase | 'submitting';

export interface ProgressSummary {
  nodesDone: number;
  nodesTotal: number | null;
  currentNode: string | null;
}

export const TERMINAL_PHASES: ReadonlySet<JobPhase> = new Set(['succeeded', 'failed', 'cancelled']);

export function isTerminalPhase(phase: string): phase is 'succeeded' | 'failed' | 'cancelled' {
  return TERMINAL_PHASES.has(phase as JobPhase);
}

/** Identity of an output file: the same file reported twice (cache, history) counts once. */
export function outputKey(file: { filename: string; subfolder: string; type: string }): string {
  return JSON.stringify([file.type, file.subfolder, file.filename]);
}

/** Appends to `into` the files of `more` not already in it; returns the ones added. */
export function mergeOutputs(into: OutputFile[], more: readonly OutputFile[]): OutputFile[] {
  const seen = new Set(into.map(outputKey));
  const added: OutputFile[] = [];
  for (const file of more) {
    const key = outputKey(file);
    if (seen.has(key)) continue;
    seen.add(key);
    into.push(file);
    added.push(file);
  }
  return added;
}

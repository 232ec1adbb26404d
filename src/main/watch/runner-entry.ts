// The hot folder runner's in-memory record of one content (an "entry", keyed by content and backed
// by a journal record), the errors that steer how a failed run is treated, and how an entry or a
// bare path shows in the folder's file table. Shared by the runner and its collaborators.
import type { Workflow } from '@main/service/types';
import type { EntryRecord, JournalState } from './journal';
import type { HotFileRow, HotFileState } from './types';

export interface Entry {
  record: EntryRecord;
  /** Other paths with the same content (duplicates), which never run on their own. */
  aliases: Set<string>;
  /** The workflow as sent, once known. */
  workflow: Workflow | null;
  /** Accepted by this process (its events come to our socket), as opposed to found in the journal. */
  sentHere: boolean;
  retryAt: number | null;
  /** 'orphaned': its job is on a pool server that stopped answering (see FolderRunner.orphan). */
  where: 'idle' | 'queued' | 'delayed' | 'active' | 'orphaned';
  /** Pool servers that refused this file before it was sent (its upload is over their limits), with why. */
  refusedBy?: Map<string, string>;
}

export type ActivePhase = 'sending' | 'following' | 'delivering';

/** Row keys in the file table: an entry's row (by content key), a path's row (settling or duplicate). */
export const ENTRY_ROW = 'e:';
export const PATH_ROW = 'p:';

export class FileGoneError extends Error {
  constructor(path: string) {
    super(`${path} was removed before it could be processed.`);
    this.name = 'FileGoneError';
  }
}

/** Stops the run of one entry without changing its journaled state (the runner is stopping). */
export class StoppedError extends Error {
  constructor() {
    super('stopped');
    this.name = 'StoppedError';
  }
}

/** A pool server came back without the job it had accepted (it restarted): the file runs again elsewhere. */
export class JobLostError extends Error {
  constructor(
    readonly promptId: string,
    server: string,
  ) {
    super(`${server} no longer knows job ${promptId} (it was restarted, or its history cleared).`);
    this.name = 'JobLostError';
  }
}

/** A failure while delivering outputs of a job that ran: retried as collection, never as a new job. */
export class CollectError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'CollectError';
  }
}

/** The table row of an entry, from its journal record. */
export function entryRow(folderId: string, entry: Entry): HotFileRow {
  const r = entry.record;
  return {
    folderId,
    path: r.path,
    relPath: r.relPath,
    state: rowState(r.state),
    contentKey: r.contentKey,
    maskPath: r.maskPath,
    promptId: r.promptId,
    attempts: r.attempts,
    reason: r.reason,
    retryAt: entry.where === 'delayed' ? entry.retryAt : null,
    outputs: [...r.outputs],
    duplicateOf: null,
    server: r.baseUrl,
    updatedAt: r.updatedAt,
  };
}

/** The table row of a path that has no entry of its own (settling, or a duplicate). */
export function pathRow(folderId: string, path: string, relPath: string, state: HotFileState, now: number): HotFileRow {
  return {
    folderId,
    path,
    relPath,
    state,
    contentKey: null,
    maskPath: null,
    promptId: null,
    attempts: 0,
    reason: null,
    retryAt: null,
    outputs: [],
    duplicateOf: null,
    server: null,
    updatedAt: now,
  };
}

function rowState(state: JournalState): HotFileState {
  switch (state) {
    case 'discovered':
      return 'waiting';
    case 'uploading':
      return 'uploading';
    case 'submitting':
      return 'submitting';
    case 'submitted':
      return 'running';
    case 'done':
      return 'done';
    case 'failed':
      return 'failed';
  }
}

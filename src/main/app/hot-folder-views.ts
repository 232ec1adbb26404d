// Hot folders as the renderer sees them: a folder's configuration and status, and a file's row,
// shaped to the contract (hot-folders-contract.ts). Folders of an app with no server connected
// are shown from their saved configuration and journal, paused with the reason.
import type { HotFileView, HotFolderCountersView, HotFolderView } from '@shared/ipc/hot-folders-contract';
import { stringifyJsonExact } from '@shared/json';
import type { JobSnapshot } from '@main/jobs/types';
import type { HotFileRow, HotFileState, HotFolderConfig, HotFolderCounters, HotFolderStatus } from '../watch';
import type { EntryRecord, JournalState } from '@main/watch/journal';

export const NO_SERVER_REASON = 'No server is connected: the folder runs again once a server profile is connected.';

/** The exact JSON of a configuration's workflow, made once per configuration (it can be large). */
const workflowText = new WeakMap<HotFolderConfig, string>();
function workflowJsonOf(config: HotFolderConfig): string {
  let text = workflowText.get(config);
  if (text === undefined) {
    text = stringifyJsonExact(config.workflow);
    workflowText.set(config, text);
  }
  return text;
}

export function countersView(counters: HotFolderCounters): HotFolderCountersView {
  return { waiting: counters.waiting, running: counters.running, done: counters.done, failed: counters.failed, duplicates: counters.duplicates };
}

export function folderView(config: HotFolderConfig, status: Omit<HotFolderStatus, 'id' | 'name'>): HotFolderView {
  return {
    id: config.id,
    name: config.name,
    inputDir: config.inputDir,
    outputDir: config.outputDir,
    recursive: config.recursive,
    patterns: [...config.patterns],
    workflowJson: workflowJsonOf(config),
    workflowName: config.workflowName,
    bind: config.bind,
    maskRule: config.maskRule,
    outputName: config.outputName,
    concurrency: config.concurrency,
    processed: config.processed,
    enabled: config.enabled,
    runOn: config.runOn,
    status: {
      counters: countersView(status.counters),
      paused: status.paused,
      pauseKind: status.pauseKind,
      pauseReason: status.pauseReason,
      scanned: status.scanned,
      idle: status.idle,
    },
  };
}

/** The status of a saved folder while no server is connected. */
export function offlineStatus(counters: HotFolderCounters, pausedByUser: boolean, reason: string | null = null): Omit<HotFolderStatus, 'id' | 'name'> {
  return { counters, paused: true, pauseKind: pausedByUser ? 'user' : null, pauseReason: reason ?? NO_SERVER_REASON, scanned: false, idle: true };
}

/** Overall share of a running job done: finished nodes plus the current node's steps. Null when unknown. */
export function jobProgress(snapshot: JobSnapshot | null): number | null {
  if (!snapshot || !snapshot.nodesTotal) return null;
  const current = snapshot.currentNode ? snapshot.nodes[snapshot.currentNode] : undefined;
  const partial = current && current.max > 0 ? Math.min(1, Math.max(0, current.value / current.max)) : 0;
  return Math.min(1, Math.max(0, (snapshot.nodesDone + partial) / snapshot.nodesTotal));
}

/** `serverName`: the profile name of the server the row's job went to, when known. */
export function fileView(row: HotFileRow, progress: number | null, serverName: string | null = null): HotFileView {
  return {
    folderId: row.folderId,
    path: row.path,
    relPath: row.relPath,
    state: row.state,
    promptId: row.promptId,
    attempts: row.attempts,
    reason: row.reason,
    retryAt: row.retryAt,
    progress: row.state === 'running' ? progress : row.state === 'done' ? 1 : null,
    outputs: [...row.outputs],
    duplicateOf: row.duplicateOf,
    server: row.server,
    serverName,
    updatedAt: row.updatedAt,
  };
}

const STATE_OF_ENTRY: Record<JournalState, HotFileState> = {
  discovered: 'waiting',
  uploading: 'uploading',
  submitting: 'submitting',
  submitted: 'running',
  done: 'done',
  failed: 'failed',
};

/** A journal entry as a file row (what a folder knew when it last ran). */
export function entryRow(entry: EntryRecord): HotFileRow {
  return {
    folderId: entry.folderId,
    path: entry.path,
    relPath: entry.relPath,
    state: STATE_OF_ENTRY[entry.state],
    contentKey: entry.contentKey,
    maskPath: entry.maskPath,
    promptId: entry.promptId,
    attempts: entry.attempts,
    reason: entry.reason,
    retryAt: null,
    outputs: [...entry.outputs],
    duplicateOf: null,
    server: entry.baseUrl,
    updatedAt: entry.updatedAt,
  };
}

/** Counters from the journal's count of entries per state (duplicates are not journaled: each content runs once). */
export function countersOfStates(counts: Partial<Record<JournalState, number>>): HotFolderCounters {
  const n = (state: JournalState): number => counts[state] ?? 0;
  return { waiting: n('discovered'), running: n('uploading') + n('submitting') + n('submitted'), done: n('done'), failed: n('failed'), duplicates: 0 };
}

/** A drained folder's counters in words, for its notification. */
export function drainedText(counters: HotFolderCounters): string {
  const parts = [`${counters.done} done`, `${counters.failed} failed`];
  if (counters.duplicates > 0) parts.push(`${counters.duplicates} duplicate${counters.duplicates === 1 ? '' : 's'}`);
  return parts.join(', ');
}

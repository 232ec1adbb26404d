// The outputs library's public shapes: what an item is, how it is asked for, what changes are
// announced. Items are plain data (no class instances), so they cross IPC and print as JSON as is.
import type { JsonValue } from '@shared/json';
import type { DownloadOptions, DownloadResult } from '@main/service/ports';
import type { FileRef, OutputFile, ServerKind, Workflow } from '@main/service/types';

/** What kind of media a file holds, from its bytes (falling back to its name and content type). */
export type MediaKind = 'image' | 'video' | 'audio' | 'model' | 'other';
export const MEDIA_KINDS: readonly MediaKind[] = ['image', 'video', 'audio', 'model', 'other'];

/**
 * pending: waiting for its (first or next) download; downloading: a download runs now;
 * done: the file is in the library; failed: the last attempt failed (`retryAt` says whether and
 * when another one is scheduled; null means the library gave up until `retry(id)`).
 */
export type ItemStatus = 'pending' | 'downloading' | 'done' | 'failed';

/** The server a job ran on: enough to find a client for it again after a restart. */
export interface LibraryServer {
  profileId: string | null;
  kind: ServerKind;
  baseUrl: string;
}

/** One output file of one job. */
export interface LibraryItem {
  id: number;
  promptId: string;
  server: LibraryServer;
  workflowName: string | null;
  nodeId: string;
  /** `class_type` of the node in the workflow, when the workflow was recorded and names it. */
  nodeClass: string | null;
  /** Key of the node's output the file came under (images, video, audio, gifs, ...). */
  outputKey: string;
  /** The server's reference, as it sent it (untrusted: shown, never used as a path). */
  file: FileRef;
  mediaKind: MediaKind;
  mime: string | null;
  /** Bytes on disk; null until downloaded. */
  size: number | null;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  sha256: string | null;
  /** Absolute path of the file in the library; null until downloaded. */
  path: string | null;
  /** When the job was created (epoch ms): what the date folders and date filters use. */
  createdAt: number;
  recordedAt: number;
  completedAt: number | null;
  /** Literal input values of the run, per node id (links left out); big integers stay exact. */
  inputs: Record<string, Record<string, JsonValue>>;
  /** The prompt texts found among the inputs (string inputs named like prompt/text), one per line. */
  promptText: string;
  status: ItemStatus;
  attempts: number;
  /** Why the last attempt failed, in plain words; null when it did not. */
  error: string | null;
  /** When the next attempt is due (epoch ms); null when none is scheduled. */
  retryAt: number | null;
  /** For the outputs of a hot folder: the input file they were made from. */
  sourceFile: string | null;
}

export interface ListFilter {
  type?: MediaKind | undefined;
  /** Inclusive lower bound on createdAt (epoch ms or Date). */
  since?: number | Date | undefined;
  /** Exclusive upper bound on createdAt (epoch ms or Date). */
  until?: number | Date | undefined;
  /** Workflow name, matched exactly but case-insensitively. */
  workflow?: string | undefined;
  /** Profile id or base URL of the server. */
  server?: string | undefined;
  /** One status or several; every status when absent. */
  status?: ItemStatus | readonly ItemStatus[] | undefined;
  /** Only the outputs of this job. */
  promptId?: string | undefined;
  /** Default 100, at most 10,000. */
  limit?: number | undefined;
  offset?: number | undefined;
}

export type LibraryChange = { type: 'added'; item: LibraryItem } | { type: 'updated'; item: LibraryItem } | { type: 'removed'; id: number };

/** The job whose outputs are recorded: a JobSnapshot fits, so does a hand-made object. */
export interface RecordJob {
  promptId: string;
  outputs: readonly OutputFile[];
  /** The job's creation time; `createdAt` of the context wins, else now. */
  trackedAt?: number;
  workflowName?: string | null;
}

export interface RecordContext {
  server: LibraryServer;
  workflow?: Workflow | null;
  workflowName?: string | null;
  createdAt?: number;
  /**
   * Copies wanted elsewhere (flowdeck run --out on a file system without reflinks): for an output,
   * fresh partial paths the library's download writes from the same network read (a tee). Only a
   * newly recorded output's first attempt writes them; complete and fsynced once its item is done,
   * absent otherwise. The caller publishes them.
   */
  alsoWriteTo?: (output: OutputFile) => readonly string[];
}

/** What the library needs from a service client: ServiceApi.download fits. */
export interface DownloadSource {
  download(ref: FileRef, destDir: string, options?: DownloadOptions): Promise<DownloadResult>;
}

/**
 * Finds a client for a server. Null (or SourceUnavailableError) means "not reachable from here
 * now": the item stays pending, no attempt is counted, and the next resumePending() tries again.
 */
export type SourceResolver = (server: LibraryServer) => DownloadSource | null | Promise<DownloadSource | null>;

export interface LibraryRetryPolicy {
  /** Attempts before the library gives up (until retry(id)). */
  maxAttempts: number;
  baseMs: number;
  maxMs: number;
  random: () => number;
}

export interface Thumbnail {
  path: string;
  mime: 'image/jpeg';
  width: number;
  height: number;
}

export class SourceUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceUnavailableError';
  }
}

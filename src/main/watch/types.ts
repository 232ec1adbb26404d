// Public types of hot folders: what the app core, the CLI and the outputs library see.
// The folder configuration itself (and its defaults) lives in config.ts.
import type { StreamDigest } from '@main/service/ports';
import type { OutputFile, ServerKind, Workflow } from '@main/service/types';

/**
 * Where a hot-folder file stands, as the per-file table shows it.
 * settling: seen, waiting until its size and modification time stop changing;
 * waiting: complete and queued (possibly until a retry's backoff has passed);
 * uploading / submitting / running: in flight (running = the server has the job);
 * done / failed: finished; duplicate: the same content as another file, which runs instead.
 */
export type HotFileState = 'settling' | 'waiting' | 'uploading' | 'submitting' | 'running' | 'done' | 'failed' | 'duplicate';

export interface HotFileRow {
  folderId: string;
  /** Where the file is now (after a move to done/ or failed/, its new place). */
  path: string;
  /** Path relative to the input folder, as first seen. */
  relPath: string;
  state: HotFileState;
  /** Content key (sha256 of the image, combined with the mask's when there is one); null while settling. */
  contentKey: string | null;
  maskPath: string | null;
  promptId: string | null;
  attempts: number;
  /** Why it failed, or why it waits (a retry after an error). */
  reason: string | null;
  /** When a retry is due (epoch ms), for a waiting file that failed before. */
  retryAt: number | null;
  /** Paths of the outputs written for it. */
  outputs: string[];
  /** For a duplicate: the path of the file with the same content. */
  duplicateOf: string | null;
  /** The server its job went to (base URL), once sent; a pool spreads a folder's files over several. */
  server: string | null;
  updatedAt: number;
}

export interface HotFolderCounters {
  /** Settling or queued. */
  waiting: number;
  /** Uploading, submitting, or running on the server. */
  running: number;
  done: number;
  failed: number;
  duplicates: number;
}

/** servers_down: every pool server that can run the folder's workflow is out of rotation. */
export type PauseKind = 'user' | 'unauthorized' | 'insufficient_credits' | 'subscription_inactive' | 'servers_down';

export interface HotFolderStatus {
  id: string;
  name: string;
  counters: HotFolderCounters;
  paused: boolean;
  pauseKind: PauseKind | null;
  /** What the user must do, in plain words, when paused for a reason other than the user's own pause. */
  pauseReason: string | null;
  /** True once the start-up scan has been done. */
  scanned: boolean;
  /** Nothing settling, queued or in flight. */
  idle: boolean;
}

export type HotFolderEvent =
  | { type: 'file'; folderId: string; row: HotFileRow }
  | { type: 'folder'; folderId: string; status: HotFolderStatus }
  /** Every file seen so far has finished (done, failed or duplicate) after a batch of work. */
  | { type: 'drained'; folderId: string; counters: HotFolderCounters }
  | { type: 'output'; folderId: string; output: FinishedOutput }
  /** Something that did not stop the folder (a sink that failed, a file that vanished). */
  | { type: 'warning'; folderId: string; message: string };

/** Where a finished output came from: enough to find the input, rerun the job, or explain it. */
export interface OutputProvenance {
  source: 'hot-folder';
  folderId: string;
  folderName: string;
  inputPath: string;
  inputSha256: string;
  maskPath: string | null;
  maskSha256: string | null;
  /** The workflow input that received the file, NODE.INPUT. */
  bind: string;
  /** The workflow exactly as submitted (with the uploaded name in place). */
  workflow: Workflow;
  workflowName: string | null;
  promptId: string;
  server: { kind: ServerKind; baseUrl: string };
  /** The server's reference of this output. */
  serverFile: OutputFile;
  /** Position of this output among its node's outputs, from 1. */
  index: number;
  sidecarPath: string;
  finishedAt: number;
}

export interface FinishedOutput {
  /** Absolute path of the output file on disk. */
  path: string;
  provenance: OutputProvenance;
}

/**
 * Receives every output a hot folder writes (the outputs library implements it). A sink that
 * throws does not fail the file: the failure becomes a warning event.
 */
export interface OutputSink {
  /**
   * `staged`: what the download already gave the sink (see prepare()). Once add() resolves, the
   * tee copy is the sink's: published, or removed (the caller removes it only when add() fails).
   */
  add(output: FinishedOutput, staged?: StagedOutput): Promise<void>;
  /**
   * Asked before an output is downloaded into `outputDir`, so the sink's copy is written from the
   * same network read instead of being copied back from the output: a fresh partial path for a
   * tee copy (null when the sink needs none, e.g. it takes the file by reflink), and how many
   * first bytes the download's digest keeps.
   */
  prepare?(outputDir: string): Promise<{ teePath: string | null; headBytes: number }>;
}

/** What the download of an output already did for the sink. */
export interface StagedOutput {
  /** The tee copy prepare() asked for, complete and fsynced; null when none was asked. */
  teePath: string | null;
  /** The output's identity, taken while it streamed. */
  digest: StreamDigest;
}

// What a Library is opened with (its store, folder, download source, concurrency, retry policy,
// the types it records, the trash), its defaults, what a delete answers, and the identity of an
// output within the library's bookkeeping.
import type { Store } from '@main/store/store';
import type { TrashFunction, TrashPlace } from './trash';
import type { LibraryRetryPolicy, SourceResolver } from './types';

export interface LibraryOptions {
  /** The shared store (opened by the caller, who also closes it). */
  store: Store;
  /** The library folder (see resolveLibraryDir). */
  root: string;
  /** Finds a client for a job's server when its files are downloaded (also after a restart). */
  source: SourceResolver;
  now?: () => number;
  /** Downloads running at once. Default 2. */
  concurrency?: number;
  retry?: Partial<LibraryRetryPolicy>;
  /** File reference types recorded. Default ['output']: `temp` previews and `input` files are not outputs. */
  includeTypes?: readonly string[];
  /** Moves a file to the OS trash; default the `trash` package. */
  trash?: TrashFunction;
  log?: (message: string) => void;
}

export interface DeleteResult {
  removed: boolean;
  /** Where the file went: the OS trash, the library's .trash folder, or nowhere (still used by another item, or none). */
  trash: TrashPlace | null;
  /** Present when the file stayed because this many other items still use it. */
  sharedBy?: number;
}

export const DEFAULT_LIBRARY_RETRY: LibraryRetryPolicy = { maxAttempts: 8, baseMs: 2_000, maxMs: 10 * 60_000, random: Math.random };

/** One output of one job on one server, as a key. */
export function outputKey(baseUrl: string, promptId: string, file: { type: string; subfolder: string; filename: string }): string {
  return JSON.stringify([baseUrl, promptId, file.type, file.subfolder, file.filename]);
}

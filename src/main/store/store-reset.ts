// A store file that SQLite cannot read as a database (random bytes, a truncated copy, a disk
// error) would otherwise stop every command at start. It is moved aside, never deleted, so the
// user (or support) can still inspect or recover it, and a fresh store takes its place.
import { closeSync, existsSync, openSync, readSync, renameSync } from 'node:fs';

/** What happened when the store was found damaged: where the damaged file went, and why. */
export interface StoreReset {
  corruptCopy: string;
  reason: string;
}

/** True for the SQLite errors that mean "this file is not a (sound) database". */
export function isCorruptionError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') return true;
  }
  return false;
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Why the file at `path` is plainly not a database (its header is wrong), or null. Checked before
 * SQLite opens it: SQLite would discard a -wal beside a file it cannot read, and that is kept too.
 */
export function headerProblem(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null; // missing (a new store) or unreadable: SQLite reports that itself
  }
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, head, 0, head.length, 0);
    if (read === 0) return null; // an empty file is a valid new database
    return head.subarray(0, read).equals(SQLITE_HEADER) ? null : 'file is not a database';
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function stamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/** Renames `path` (and its -wal/-shm companions) to `path.corrupt-<UTC time>`; returns the new name. */
export function setCorruptStoreAside(path: string, now: Date = new Date()): string {
  let target = `${path}.corrupt-${stamp(now)}`;
  for (let n = 1; existsSync(target); n += 1) target = `${path}.corrupt-${stamp(now)}-${n}`;
  // The companions first: a -wal left beside a fresh store would be replayed into it.
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(path + suffix)) renameSync(path + suffix, target + suffix);
  }
  renameSync(path, target);
  return target;
}

/** The line every front end shows after a reset. */
export function storeResetNotice(reset: StoreReset): string {
  return `The local data store was damaged (${reset.reason}); it was moved aside to ${reset.corruptCopy} and a new, empty one was started. Job history, the library index and hot-folder journals start afresh; no output file was deleted.`;
}

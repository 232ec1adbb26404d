// Where files go in the library folder, so that a person browsing it understands it:
//   <library>/2026/11/21/<safe name>        (the job's local date; " (1)" on a name collision)
//   <library>/.incoming/<pid>-<random>/     (downloads in progress; never a finished file)
//   <library>/.thumbnails/                  (generated once per file and size)
// Paths are stored relative to the library root with "/" separators, so the index stays valid
// when the library folder moves, and a stored path is checked to stay inside the root.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

export const INCOMING_DIR = '.incoming';
export const THUMBNAIL_DIR = '.thumbnails';
export const TRASH_DIR = '.trash';

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** "2026/11/21" for a time, in the local time zone (the date the person saw). */
export function datedFolder(createdAt: number): string {
  const d = new Date(createdAt);
  return `${d.getFullYear()}/${pad(d.getMonth() + 1)}/${pad(d.getDate())}`;
}

/** The absolute path of a stored relative path; null when it would leave the root (a damaged row). */
export function absolutePath(root: string, relative: string): string | null {
  if (relative === '' || relative.includes('\0')) return null;
  const parts = relative.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\'))) return null;
  const full = path.join(root, ...parts);
  const rel = path.relative(root, full);
  return rel.startsWith('..') || path.isAbsolute(rel) ? null : full;
}

export function relativePath(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join('/');
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes staging folders left by processes that are gone (a crash or a kill mid-download), so no
 * partial file outlives its download. Folders of live processes (the app and a CLI run may share
 * the library) are left alone. Returns how many were removed.
 */
export async function removeStaleStaging(root: string): Promise<number> {
  const incoming = path.join(root, INCOMING_DIR);
  const entries = await fs.readdir(incoming, { withFileTypes: true }).catch(() => []);
  let removed = 0;
  for (const entry of entries) {
    const pid = Number(/^(\d+)-/.exec(entry.name)?.[1] ?? NaN);
    if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) continue;
    await fs.rm(path.join(incoming, entry.name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

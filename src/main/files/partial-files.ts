// Files are written under a partial name and renamed when complete, so a folder never shows a
// half-written file. A process killed mid-write (kill -9, a power cut) leaves the partial file
// behind; the next run removes those that are certainly this program's own and certainly dead:
// - NAME.part-<pid>-<random>: written by process <pid>; stale once that process is gone (or when
//   the pid is ours but the file is older than this process: the pid was reused);
// - NAME.part-<12 hex>: the form without a pid (downloads and copies by earlier versions);
//   stale once it has not changed for STALE_UNOWNED_MS before this process started.
// Anything else, however similar ("notes.part-1"), is not ours and stays.
import { randomBytes } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

const WITH_PID = /\.part-(\d{1,10})-[0-9a-z]{6,12}$/;
const UNOWNED = /\.part-[0-9a-f]{12}$/;
/** An unowned partial file this long untouched before our start cannot be a write under way. */
export const STALE_UNOWNED_MS = 10 * 60_000;

const processStartMs = Date.now() - process.uptime() * 1000;

/** A fresh partial path for `finalPath`, carrying this process's id. */
export function partialPathFor(finalPath: string): string {
  return `${finalPath}.part-${process.pid}-${randomBytes(6).toString('hex')}`;
}

export function isOwnPartialName(name: string): boolean {
  return WITH_PID.test(name) || UNOWNED.test(name);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function isStale(path: string, name: string): Promise<boolean> {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) return false;
  const owner = WITH_PID.exec(name);
  if (owner) {
    const pid = Number(owner[1]);
    if (pid === process.pid) return info.mtimeMs < processStartMs;
    return !isAlive(pid);
  }
  return info.mtimeMs < processStartMs - STALE_UNOWNED_MS;
}

/** Removes this program's stale partial files directly in `dir`; returns their paths. */
export async function sweepStalePartials(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    if (!isOwnPartialName(name)) continue;
    const path = join(dir, name);
    if (!(await isStale(path, name))) continue;
    try {
      await rm(path);
      removed.push(path);
    } catch {
      // gone already, or not ours to remove: leave it
    }
  }
  return removed;
}

// One process per hot folder: two `flowdeck watch` runs on the same folder would each take every
// file. The lock is a file holding the owner's pid; a lock whose process is gone (killed, crashed)
// is taken over, so a kill -9 never blocks the next start.
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export class FolderLockedError extends Error {
  readonly pid: number;
  constructor(pid: number, what: string) {
    super(`Another Flowdeck process (pid ${pid}) is already watching ${what}. Stop it first, or watch another folder.`);
    this.name = 'FolderLockedError';
    this.pid = pid;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock at `path` (describing the folder as `what` in the error); returns its release. */
export function acquireFolderLock(path: string, what: string): () => void {
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let owner = NaN;
    try {
      owner = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    } catch {
      continue; // released meanwhile
    }
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) throw new FolderLockedError(owner, what);
    try {
      unlinkSync(path); // a stale lock: its owner is gone
    } catch {
      // someone else removed it first
    }
  }
  throw new Error(`Could not take the lock ${path}.`);
}

// Copy-on-write copies ("reflinks", FICLONE): on btrfs, XFS, APFS and the like a second file can
// share the first one's blocks until either is written, so a copy costs no read and no write, and
// editing one never changes the other (unlike a hard link). Other file systems (ext4, NTFS, FAT)
// cannot; there the caller writes both files from the one network read instead (a tee), never by
// reading one file back. Whether a pair of folders can is probed once per device and remembered.
import { constants as fsConstants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { partialPathFor } from './partial-files';

/** Errors that mean "no reflink here", as opposed to a real failure of the copy. */
const NO_REFLINK = new Set(['EOPNOTSUPP', 'ENOTSUP', 'ENOSYS', 'EXDEV', 'EINVAL', 'ENOTTY', 'EPERM', 'EBADF']);

/** Per device: whether a reflink inside it works (null while unknown). */
const probed = new Map<number, Promise<boolean>>();

/**
 * Copies `source` to the fresh path `dest` by reflink only. True when done; false when the file
 * system cannot (then `dest` is absent); other errors (ENOENT, EEXIST, ...) are thrown.
 */
export async function reflinkCopy(source: string, dest: string): Promise<boolean> {
  try {
    await fs.copyFile(source, dest, fsConstants.COPYFILE_EXCL | fsConstants.COPYFILE_FICLONE_FORCE);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (!NO_REFLINK.has(code)) throw error;
    // libuv opens `dest` before it asks for the clone: an empty file may be left behind.
    await fs.rm(dest, { force: true }).catch(() => {});
    return false;
  }
}

async function probe(fromDir: string, toDir: string): Promise<boolean> {
  const source = partialPathFor(path.join(fromDir, 'reflink-probe'));
  const dest = partialPathFor(path.join(toDir, 'reflink-probe'));
  try {
    await fs.writeFile(source, 'x', { flag: 'wx' });
    return await reflinkCopy(source, dest);
  } catch {
    return false;
  } finally {
    await Promise.all([fs.rm(source, { force: true }), fs.rm(dest, { force: true })]).catch(() => {});
  }
}

/** Per pair of folders that both existed: the answer (a hot folder asks it for every output). */
const pairs = new Map<string, Promise<boolean>>();
const MAX_PAIRS = 256;

/** Whether a file in `fromDir` can be reflinked into `toDir` (both existing folders). */
export async function canReflink(fromDir: string, toDir: string): Promise<boolean> {
  const key = `${path.resolve(fromDir)}\0${path.resolve(toDir)}`;
  const known = pairs.get(key);
  if (known) return known;
  const [a, b] = await Promise.all([fs.stat(fromDir).catch(() => null), fs.stat(toDir).catch(() => null)]);
  // A missing folder is asked about again next time (it may be made meanwhile).
  if (!a || !b) return false;
  let answer: Promise<boolean>;
  if (a.dev !== b.dev) {
    answer = Promise.resolve(false); // a clone never crosses file systems (EXDEV)
  } else {
    answer = probed.get(a.dev) ?? probe(fromDir, toDir);
    probed.set(a.dev, answer);
  }
  if (pairs.size >= MAX_PAIRS) pairs.clear();
  pairs.set(key, answer);
  return answer;
}

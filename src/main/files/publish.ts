// The one way a file Flowdeck writes gets its name where people look (downloads, the library,
// `flowdeck run --out`, hot-folder outputs and sidecars, thumbnails, the library's .trash):
//   1. its bytes go to a partial name beside the target, NAME.part-<pid>-<hex> (partialPathFor),
//      which partial-files.ts sweeps once that process is gone;
//   2. the writer fsyncs the file, once, on the descriptor that wrote it (before this step);
//   3. publishFile gives it its final name: without replacing anything (link() fails with EEXIST,
//      then "name (1).ext", ...), or, where the caller owns the name, by rename over it;
//   4. syncDirectory makes the new name durable (once per folder and batch, by the caller).
// A kill -9 at any point leaves the complete file under its final name, or only a partial name.
import { constants as fsConstants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { partialPathFor } from './partial-files';

export { partialPathFor };

/** link() errors of file systems without hard links (FAT, some network shares). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

/** "name (1).ext", "name (2).ext", ...; `name` itself for 0. */
export function numberedName(name: string, n: number): string {
  if (n === 0) return name;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

export interface PublishOptions {
  /** Replace a file of that name (the caller's own earlier file); default: never, take "name (n)". */
  replace?: boolean;
}

/**
 * Gives the complete file at `tempPath` its final name in `dir` and returns that path. `name` must
 * be a plain file name (already made safe, e.g. by safeBaseName): one that would leave `dir` is
 * refused; `dir` is created when missing. Without `replace`, the first free of `name`, "name (1).ext", ... is taken atomically,
 * even against another process writing the same folder.
 */
export async function publishFile(tempPath: string, dir: string, name: string, options: PublishOptions = {}): Promise<string> {
  const folder = path.resolve(dir);
  if (name === '' || name === '.' || name === '..' || path.dirname(path.join(folder, name)) !== folder)
    throw new Error(`Refusing to publish ${JSON.stringify(name)}: not a plain file name in ${folder}.`);
  // A partial file beside its target proves the folder is there; a file staged elsewhere (the
  // library's) finds its folder there nearly always (a dated folder takes a day of files), so the
  // folder is made only when the name cannot be given for want of it (ENOENT), then tried again.
  const beside = path.dirname(path.resolve(tempPath)) === folder;
  try {
    return await placeName(tempPath, folder, name, options);
  } catch (error) {
    if (beside || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await fs.mkdir(folder, { recursive: true });
    return placeName(tempPath, folder, name, options);
  }
}

async function placeName(tempPath: string, folder: string, name: string, options: PublishOptions): Promise<string> {
  if (options.replace) {
    const target = path.join(folder, name);
    await fs.rename(tempPath, target);
    return target;
  }
  for (let n = 0; n < 10_000; n += 1) {
    const target = path.join(folder, numberedName(name, n));
    try {
      await fs.link(tempPath, target);
      await fs.unlink(tempPath);
      return target;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (code === 'EEXIST') continue;
      if (!NO_HARD_LINKS.has(code)) throw error;
      // No hard links here: check, then rename (not atomic against another writer, the best there is).
      const exists = await fs.access(target, fsConstants.F_OK).then(
        () => true,
        () => false,
      );
      if (exists) continue;
      await fs.rename(tempPath, target);
      return target;
    }
  }
  throw new Error(`Could not find a free file name for ${name} in ${folder}.`);
}

/** Per folder: the fsync not yet begun, which every caller until it begins shares. */
const waitingSyncs = new Map<string, Promise<void>>();
/** Per folder: the last fsync queued; the next one begins after it. */
const lastSyncs = new Map<string, Promise<void>>();

/** A folder that cannot be opened for an fsync here: gone, or a platform without it (Windows). */
const CANNOT_OPEN_FOLDER = new Set(['ENOENT', 'EISDIR', 'EPERM', 'EACCES']);
/** A file system that does not fsync folders (some FUSE and network ones). */
const CANNOT_SYNC_FOLDER = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EBADF', 'EROFS']);

async function fsyncDirectory(dir: string): Promise<void> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(dir, 'r');
  } catch (error) {
    if (CANNOT_OPEN_FOLDER.has((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    // An I/O error means the new names may not be on disk: every waiter hears of it.
    if (!CANNOT_SYNC_FOLDER.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * Makes the names made in `dir` so far durable on Linux; not possible on Windows, where it is
 * skipped. Group sync: an fsync covers every name made before it begins, so callers share the one
 * not yet begun, and a caller that comes while one runs waits for the next (hot folders publish
 * many files into one folder at once: one fsync each was ~2 of the ~9 file-system calls per image).
 * An fsync that fails (an I/O error) rejects every caller that shared it; a folder that is gone, or
 * a file system that cannot fsync folders, answers at once.
 */
export function syncDirectory(dir: string): Promise<void> {
  const key = path.resolve(dir);
  const waiting = waitingSyncs.get(key);
  if (waiting) return waiting;
  const begin = (): Promise<void> => {
    waitingSyncs.delete(key); // it begins: later callers need the next one
    return fsyncDirectory(key);
  };
  // After the previous fsync, whatever its outcome (its callers have heard of it).
  const sync = (lastSyncs.get(key) ?? Promise.resolve()).then(begin, begin);
  waitingSyncs.set(key, sync);
  lastSyncs.set(key, sync);
  const forget = (): void => {
    if (lastSyncs.get(key) === sync) lastSyncs.delete(key);
  };
  void sync.then(forget, forget);
  return sync;
}

/**
 * Writes `data` to `finalPath` through a partial name and renames it over any earlier file of
 * that name (the caller's own). `durable` fsyncs the file first; small, re-creatable files
 * (sidecars, thumbnails) skip it: after a power cut they may be absent, never half-written names.
 */
export async function writeFileAtomically(finalPath: string, data: string | Uint8Array, options: { durable?: boolean } = {}): Promise<string> {
  const temp = partialPathFor(finalPath);
  try {
    // The folder must be there already (a missing one is the caller's error to report).
    const handle = await fs.open(temp, 'wx');
    try {
      await handle.writeFile(data);
      if (options.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    return await publishFile(temp, path.dirname(finalPath), path.basename(finalPath), { replace: true });
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

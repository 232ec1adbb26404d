// Where a library file really is, checked before it is read or served: the stored path with every
// symbolic link resolved must lie inside the (equally resolved) library folder and be a regular
// file. A tampered index row or a link planted in the folder can then never make the app read
// or serve a file from elsewhere on the disk.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

export type ContainedFile = { ok: true; path: string } | { ok: false; reason: 'missing' | 'outside' };

export async function containedRealPath(file: string, folder: string): Promise<ContainedFile> {
  let realFile: string;
  let realFolder: string;
  try {
    [realFile, realFolder] = await Promise.all([fs.realpath(file), fs.realpath(folder)]);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, reason: 'missing' };
    throw error;
  }
  const rel = path.relative(realFolder, realFile);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return { ok: false, reason: 'outside' };
  const stat = await fs.stat(realFile).catch(() => null);
  if (!stat) return { ok: false, reason: 'missing' };
  // A folder, a device or a pipe is never an output file.
  if (!stat.isFile()) return { ok: false, reason: 'outside' };
  return { ok: true, path: realFile };
}

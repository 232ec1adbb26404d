// Putting a received upload in its place: a rename (the temporary file lives on the same disk),
// and the local server's duplicate check (same name and same bytes keeps the existing file).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, copyFile, rename, rm, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { regularFileSize } from './send-file';

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Moves a temporary file to `dest`, replacing what is there. */
export async function moveInto(tmpPath: string, dest: string): Promise<void> {
  try {
    await rename(tmpPath, dest);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(tmpPath, dest);
    await rm(tmpPath, { force: true });
  }
}

export async function writeBytes(dest: string, bytes: Uint8Array): Promise<void> {
  await writeFile(dest, bytes);
}

/**
 * The name a local upload is stored under: `name` while free; when taken, the existing file is
 * kept if it has the same bytes (duplicate), else `name (1).ext`, `name (2).ext`, ...
 */
export async function chooseLocalName(folder: string, filename: string, sha256: string): Promise<{ filename: string; duplicate: boolean }> {
  const ext = extname(filename);
  const stem = filename.slice(0, filename.length - ext.length);
  let candidate = filename;
  for (let i = 1; ; i++) {
    const path = join(folder, candidate);
    if (!(await exists(path))) return { filename: candidate, duplicate: false };
    if ((await regularFileSize(path)) !== null && (await sha256File(path)) === sha256) return { filename: candidate, duplicate: true };
    candidate = `${stem} (${i})${ext}`;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

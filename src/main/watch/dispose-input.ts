// What happens to a processed input with `processed: 'move'`: it goes to done/ or failed/ under the
// input folder, keeping its subfolder, with " (n)" added when that name is taken. Its mask goes
// along. Renames stay on one disk (the folders are inside the input folder), so a move is atomic.
import { existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

function freeName(path: string): string {
  if (!existsSync(path)) return path;
  const ext = extname(path);
  const stem = path.slice(0, path.length - ext.length);
  for (let n = 1; ; n += 1) {
    const candidate = `${stem} (${n})${ext}`;
    if (!existsSync(candidate)) return candidate;
  }
}

/** Moves `path` to `targetDir`/`relDir`/name; returns the new path, or null when the file is gone. */
export async function moveInto(path: string, targetDir: string, relPath: string): Promise<string | null> {
  if (!existsSync(path)) return null;
  const relDir = dirname(relPath);
  const dir = relDir === '.' ? targetDir : join(targetDir, relDir);
  await mkdir(dir, { recursive: true });
  const dest = freeName(join(dir, basename(path)));
  try {
    await rename(path, dest);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return dest;
}

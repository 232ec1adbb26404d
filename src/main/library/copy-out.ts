// Copies a library file into another folder (`flowdeck run --out`): a real copy, not a link, so
// editing the copy never changes the library; written under a temporary name and renamed, so the
// folder never shows a half-copied file. Copy-on-write where the file system offers it.
import { constants as fsConstants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { partialPathFor, publishFile } from '@main/files/publish';
import { safeBaseName } from '@main/service/filenames';

export async function copyOutOfLibrary(source: string, destDir: string, name: string): Promise<string> {
  const dir = path.resolve(destDir);
  const safe = safeBaseName(name, 'output');
  await fs.mkdir(dir, { recursive: true });
  const temp = partialPathFor(path.join(dir, safe));
  try {
    await fs.copyFile(source, temp, fsConstants.COPYFILE_EXCL | fsConstants.COPYFILE_FICLONE);
    return await publishFile(temp, dir, safe, { replace: true });
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

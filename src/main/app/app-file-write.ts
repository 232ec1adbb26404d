// Saving an app into a UI workflow file on disk (its extra.linearData, see @shared/linear-data):
// the file must still hold the bytes it had when it was opened (else the user's other edits, in
// the editor say, would be overwritten: refused, with a sentence saying so); every other byte is
// kept; the new text goes to a partial file beside it, is fsynced, given the old file's mode and
// renamed over it (a symbolic link's target is written, the link stays), then the folder is
// synced. A crash at any point leaves the old file or the new one, never half of either.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { MAX_WORKFLOW_FILE_BYTES } from '@shared/ipc/contract';
import { LinearDataError, setLinearData, type LinearInput } from '@shared/linear-data';
import { partialPathFor, publishFile, syncDirectory } from '@main/files/publish';
import { AppFailure } from './errors';

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Steps a test can observe or break (a crash between writing and renaming). */
export interface WriteHooks {
  beforeRename?: (partialPath: string) => Promise<void> | void;
}

async function readBounded(path: string): Promise<Buffer> {
  const info = await fs.stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new AppFailure('not_found', error.code === 'ENOENT' ? `${path} is not there any more.` : `${path} cannot be read (${error.code ?? 'error'}).`);
  });
  if (!info.isFile()) throw new AppFailure('invalid_input', `${path} is not a file.`);
  if (info.size > MAX_WORKFLOW_FILE_BYTES) throw new AppFailure('invalid_input', `${path} is larger than 50 MB; that is not a workflow.`);
  const bytes = await fs.readFile(path);
  // It may have grown since stat.
  if (bytes.byteLength > MAX_WORKFLOW_FILE_BYTES) throw new AppFailure('invalid_input', `${path} is larger than 50 MB; that is not a workflow.`);
  return bytes;
}

function changedOnDisk(path: string): AppFailure {
  return new AppFailure(
    'invalid_input',
    `${basename(path)} changed on disk since it was opened (another program saved it), so the app was not written into it: that would undo those changes. Open the file again, then save the app; or use Save as… for a new file.`,
  );
}

/** The UI text with the app in it, or a clear refusal. */
export function textWithApp(text: string, inputs: readonly LinearInput[], what: string): string {
  try {
    return setLinearData(text, inputs);
  } catch (error) {
    if (error instanceof LinearDataError) throw new AppFailure('invalid_input', `The app cannot be written into ${what}: ${error.message}`);
    throw error;
  }
}

/** Writes `text` over `target` through a partial file with the target's mode, fsynced, then renamed. */
export async function replaceFileSafely(target: string, text: string, mode: number | null, hooks: WriteHooks = {}, check?: () => Promise<void>): Promise<void> {
  const partial = partialPathFor(target);
  try {
    const handle = await fs.open(partial, 'wx', mode ?? 0o666);
    try {
      await handle.writeFile(text, 'utf8');
      if (mode !== null) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await hooks.beforeRename?.(partial);
    await check?.();
    await publishFile(partial, dirname(target), basename(target), { replace: true });
  } catch (error) {
    await fs.rm(partial, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dirname(target));
}

/**
 * Writes `inputs` as the app of the UI file at `path`, provided its bytes still hash to
 * `fileHash`. Answers the new text and its hash.
 */
export async function saveAppIntoFile(
  path: string,
  fileHash: string,
  inputs: readonly LinearInput[],
  hooks: WriteHooks = {},
): Promise<{ path: string; fileHash: string; text: string }> {
  // The file a link points to is the one to change; the link itself stays.
  const target = await fs.realpath(path).catch(() => path);
  const bytes = await readBounded(target);
  if (sha256Hex(bytes) !== fileHash) throw changedOnDisk(path);
  const text = bytes.toString('utf8');
  const next = textWithApp(text, inputs, basename(path));
  const info = await fs.stat(target);
  await replaceFileSafely(target, next, info.mode & 0o7777, hooks, async () => {
    // Read once more just before the rename: a save by another program meanwhile is not undone.
    if (sha256Hex(await readBounded(target)) !== fileHash) throw changedOnDisk(path);
  });
  return { path, fileHash: sha256Hex(Buffer.from(next, 'utf8')), text: next };
}

// Deleting from the library moves the file to the OS trash (the `trash` package: the freedesktop
// trash on Linux, the Recycle Bin, the macOS Trash), so a slip of the hand can be undone. Where
// that fails (no trash on this volume, a sandbox, a system without a desktop), the file goes to a
// `.trash` folder inside the library instead, with a note saying why it is there: it is never
// deleted outright.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { publishFile } from '@main/files/publish';
import { TRASH_DIR } from './layout';

/** Moves one file to a trash; throws when it cannot. */
export type TrashFunction = (filePath: string) => Promise<void>;

export type TrashPlace = 'os' | 'library';

const NOTE = `Flowdeck put files here that were deleted from the library while the operating system's
trash could not be used (for example on a system without a desktop trash, or on a volume without one).
They are kept so that a deletion can be undone. Delete the files in this folder to free the space.
`;

export async function osTrash(filePath: string): Promise<void> {
  // Loaded on first use: the package is ESM-only and pulls in a few dependencies.
  const mod: unknown = await import('trash');
  const fn = (mod as { default?: unknown }).default;
  if (typeof fn !== 'function') throw new Error('the trash module has an unexpected shape');
  await (fn as (paths: string[]) => Promise<void>)([filePath]);
}

async function moveIntoLibraryTrash(filePath: string, root: string): Promise<void> {
  const dir = path.join(root, TRASH_DIR);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'README.txt'), NOTE, { flag: 'wx' }).catch(() => {});
  // Never replaces an earlier deleted file of the same name: "name (1).ext" instead.
  await publishFile(filePath, dir, path.basename(filePath));
}

/** Moves `filePath` to the OS trash, else into the library's .trash folder; says where it went. */
export async function moveToTrash(filePath: string, root: string, trash: TrashFunction, log: (message: string) => void): Promise<TrashPlace> {
  try {
    await trash(filePath);
    // Some trash implementations report success for a file they could not move.
    const still = await fs.access(filePath).then(
      () => true,
      () => false,
    );
    if (!still) return 'os';
    log(`library: the OS trash left ${filePath} in place; moving it to the library's ${TRASH_DIR} folder instead`);
  } catch (error) {
    log(
      `library: the OS trash could not take ${filePath} (${error instanceof Error ? error.message : String(error)}); moving it to the library's ${TRASH_DIR} folder instead`,
    );
  }
  await moveIntoLibraryTrash(filePath, root);
  return 'library';
}

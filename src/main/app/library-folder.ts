// The library folder setting (settings.libraryDir): which folder the next start will use, and
// choosing another one. The open Library keeps its folder for the whole run (downloads under way,
// the media server and thumbnails all hang on it), so a change takes effect on the next start;
// items already in the library stay in the folder they were written to (each row remembers it).
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { SettingsStore } from '@main/config/settings';
import { libraryDirFromSettings, resolveLibraryDir } from '../library';
import { AppFailure } from './errors';
import { systemFolderReason } from '@main/files/system-folders';

export interface LibraryFolderContext {
  dataDir: string;
  settings: SettingsStore;
  env?: NodeJS.ProcessEnv;
}

export function nextLibraryDir(ctx: LibraryFolderContext): string {
  return libraryDirFromSettings(ctx.dataDir, ctx.settings, ctx.env ?? process.env);
}

export function libraryDirFromEnvironment(ctx: LibraryFolderContext): boolean {
  return (ctx.env ?? process.env).FLOWDECK_LIBRARY_DIR?.trim() ? true : false;
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `${code}` : error instanceof Error ? error.message : String(error);
}

/** Checks that `requested` is (or can be made) a writable folder; returns its resolved path. */
async function usableFolder(requested: string): Promise<string> {
  if (!isAbsolute(requested.trim()))
    throw new AppFailure('invalid_input', `Give the library folder as a full path (such as /home/me/Pictures/Flowdeck), not "${requested}".`);
  const folder = resolve(requested.trim());
  const system = systemFolderReason(folder);
  if (system) throw new AppFailure('invalid_input', system);
  const existing = await stat(folder).catch(() => null);
  if (existing && !existing.isDirectory()) throw new AppFailure('invalid_input', `${folder} is a file, not a folder. Choose a folder for the library.`);
  if (!existing) {
    try {
      await mkdir(folder, { recursive: true });
    } catch (error) {
      throw new AppFailure('invalid_input', `Could not create the folder ${folder} (${reason(error)}). Choose a folder you can write to.`);
    }
  }
  try {
    await access(folder, fsConstants.W_OK | fsConstants.X_OK);
  } catch (error) {
    throw new AppFailure('invalid_input', `Flowdeck cannot write to ${folder} (${reason(error)}). Choose a folder you can write to.`);
  }
  return folder;
}

/** Saves the library folder setting (null: the default) and says when it takes effect. */
export async function chooseLibraryFolder(
  ctx: LibraryFolderContext,
  currentDir: string,
  requested: string | null,
): Promise<{ libraryDir: string; nextLibraryDir: string; message: string }> {
  const folder = requested === null ? null : await usableFolder(requested);
  ctx.settings.update((s) => ({ ...s, libraryDir: folder }));
  const next = nextLibraryDir(ctx);
  let message: string;
  if (libraryDirFromEnvironment(ctx)) {
    const fallback = resolveLibraryDir(ctx.dataDir, {}, folder);
    message = `Saved. FLOWDECK_LIBRARY_DIR is set for this run and wins over the setting, so the library stays in ${next}; without it, Flowdeck uses ${fallback}.`;
  } else if (next === currentDir) {
    message = `The library folder stays ${currentDir}.`;
  } else {
    message = `New outputs go to ${next} from the next start of Flowdeck. Until then they go to ${currentDir}; outputs already in the library stay where they are.`;
  }
  return { libraryDir: currentDir, nextLibraryDir: next, message };
}

// Where the library folder is: FLOWDECK_LIBRARY_DIR when set (a person or a script chose it for
// this run), else the folder the user chose in the settings, else <data folder>/library.
import { resolve } from 'node:path';
import { dataPaths } from '@main/config/data-dir';
import type { SettingsStore } from '@main/config/settings';

export function resolveLibraryDir(dataDir: string, env: NodeJS.ProcessEnv = process.env, configured?: string | null): string {
  const override = env.FLOWDECK_LIBRARY_DIR;
  if (override && override.trim() !== '') return resolve(override.trim());
  if (configured && configured.trim() !== '') return resolve(configured.trim());
  return dataPaths(dataDir).library;
}

/** The folder the settings choose (read now): the one the app opens next and every command uses. */
export function libraryDirFromSettings(dataDir: string, settings: Pick<SettingsStore, 'read'>, env: NodeJS.ProcessEnv = process.env): string {
  return resolveLibraryDir(dataDir, env, settings.read().libraryDir);
}

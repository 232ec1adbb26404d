// Where the library folder is: FLOWDECK_LIBRARY_DIR when set (a person or a script chose it for
// this run), else the folder the user chose in the settings, else <data folder>/library.
import { resolve } from 'node:path';
import { dataPaths } from '@main/config/data-dir';

export function resolveLibraryDir(dataDir: string, env: NodeJS.ProcessEnv = process.env, configured?: string | null): string {
  const override = env.FLOWDECK_LIBRARY_DIR;
  if (override && override.trim() !== '') return resolve(override.trim());
  if (configured && configured.trim() !== '') return resolve(configured.trim());
  return dataPaths(dataDir).library;
}

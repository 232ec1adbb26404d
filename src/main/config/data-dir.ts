// One data folder for all state (settings, the embedded store, the library), shared by the app,
// the CLI and the browser harness. It matches Electron's userData folder for the product name, so
// the CLI and the app see the same profiles and jobs.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const PRODUCT_NAME = 'Flowdeck';

export function resolveDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const override = env.FLOWDECK_DATA_DIR;
  if (override && override.trim() !== '') return resolve(override);
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), PRODUCT_NAME);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', PRODUCT_NAME);
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), PRODUCT_NAME);
}

/** Well-known places inside the data folder. */
export function dataPaths(dataDir: string): { settingsDir: string; database: string; cache: string; library: string } {
  return {
    settingsDir: dataDir,
    database: join(dataDir, 'flowdeck.sqlite'),
    cache: join(dataDir, 'cache'),
    library: join(dataDir, 'library'),
  };
}

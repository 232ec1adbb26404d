// The one SettingsStore: settings.json in the data folder, shared by the app, the CLI and the
// harness (several processes may use it at once, so every read goes to the file, as before).
// The file is a trust boundary: each read is parsed and validated by settingsSchema. A file that
// is not JSON, or JSON of the wrong shape, is set aside beside it under a dated name (never
// silently lost) and the defaults take its place. Writes are atomic (a temporary name, fsynced,
// renamed over the old file: atomically's writeFileSync, which conf used before), so a crash
// leaves the old settings or the new ones, never half of either.
//
// This replaced `conf` (and `electron-store`, conf for Electron): they loaded and compiled ajv's
// meta-schemas at every start for a file zod validates anyway (~0.07 s of a CLI start's CPU).
import { writeFileSync as writeFileAtomicallySync } from 'atomically';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSettings, settingsSchema, type SettingsData, type SettingsSetAside, type SettingsStore } from './settings';

const SETTINGS_FILE_NAME = 'settings.json';
/** Settings hold no secret, but nobody else on the machine needs to read the user's servers. */
const FILE_MODE = 0o600;

export class JsonSettingsStore implements SettingsStore {
  readonly path: string;
  readonly #setAside: SettingsSetAside[] = [];
  readonly #listeners = new Set<(event: SettingsSetAside) => void>();

  constructor(dataDir: string) {
    this.path = join(dataDir, SETTINGS_FILE_NAME);
  }

  onSetAside(listener: (event: SettingsSetAside) => void): () => void {
    for (const event of this.#setAside) listener(event);
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  read(): SettingsData {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return defaultSettings();
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return this.#putAside('damaged');
    }
    const parsed = settingsSchema.safeParse(json);
    return parsed.success ? parsed.data : this.#putAside('invalid');
  }

  write(next: SettingsData): void {
    const data = `${JSON.stringify(settingsSchema.parse(next), undefined, '\t')}\n`;
    mkdirSync(join(this.path, '..'), { recursive: true });
    try {
      writeFileAtomicallySync(this.path, data, { mode: FILE_MODE });
    } catch (error) {
      // Some Windows file systems answer a rename within one folder with EXDEV: write in place
      // there rather than not at all (conf did the same).
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      writeFileSync(this.path, data, { mode: FILE_MODE });
    }
  }

  update(mutate: (current: SettingsData) => SettingsData): SettingsData {
    const next = settingsSchema.parse(mutate(this.read()));
    this.write(next);
    return next;
  }

  /** Copies the unusable file beside itself, then writes the defaults over it. */
  #putAside(reason: SettingsSetAside['reason']): SettingsData {
    const copy = `${this.path}.${reason}-${Date.now()}`;
    copyFileSync(this.path, copy);
    const fresh = defaultSettings();
    this.write(fresh);
    const event = { copy, reason };
    this.#setAside.push(event);
    for (const listener of this.#listeners) listener(event);
    return fresh;
  }
}

// SettingsStore on electron-store (Electron only). Same file (settings.json in the data folder),
// same keys and the same validation as the conf-based store the CLI and the harness use, so the
// app and the CLI share one settings file.
import ElectronStore from 'electron-store';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSettings, settingsSchema, type SettingsData, type SettingsStore } from '@main/config/settings';

type RawSettings = Record<string, unknown>;

export class ElectronStoreSettings implements SettingsStore {
  private readonly store: ElectronStore<RawSettings>;

  constructor(dataDir: string) {
    const file = join(dataDir, 'settings.json');
    try {
      this.store = new ElectronStore<RawSettings>({ cwd: dataDir, name: 'settings' });
    } catch {
      // Unparseable JSON: keep the damaged file for the user, start from defaults.
      if (existsSync(file)) copyFileSync(file, `${file}.damaged-${Date.now()}`);
      this.store = new ElectronStore<RawSettings>({ cwd: dataDir, name: 'settings', clearInvalidConfig: true });
    }
  }

  read(): SettingsData {
    const parsed = settingsSchema.safeParse(this.store.store);
    if (parsed.success) return parsed.data;
    // Valid JSON of the wrong shape: set it aside rather than lose it, then use defaults.
    if (existsSync(this.store.path)) copyFileSync(this.store.path, `${this.store.path}.invalid-${Date.now()}`);
    const fresh = defaultSettings();
    this.write(fresh);
    return fresh;
  }

  write(next: SettingsData): void {
    this.store.store = settingsSchema.parse(next) as unknown as RawSettings;
  }

  update(mutate: (current: SettingsData) => SettingsData): SettingsData {
    const next = settingsSchema.parse(mutate(this.read()));
    this.write(next);
    return next;
  }
}

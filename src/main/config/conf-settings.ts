// SettingsStore on `conf` (plain Node: CLI, harness, tests). electron-store uses the same file
// format, so the app and the CLI share one settings.json.
import Conf from 'conf';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSettings, settingsSchema, type SettingsData, type SettingsStore } from './settings';

type RawSettings = Record<string, unknown>;

export class ConfSettingsStore implements SettingsStore {
  private readonly conf: Conf<RawSettings>;

  constructor(dataDir: string) {
    const file = join(dataDir, 'settings.json');
    try {
      this.conf = new Conf<RawSettings>({ cwd: dataDir, configName: 'settings', projectName: 'flowdeck' });
    } catch (error) {
      // Unparseable JSON: keep the damaged file for the user, start from defaults.
      if (existsSync(file)) copyFileSync(file, `${file}.damaged-${Date.now()}`);
      this.conf = new Conf<RawSettings>({ cwd: dataDir, configName: 'settings', projectName: 'flowdeck', clearInvalidConfig: true });
      void error;
    }
  }

  read(): SettingsData {
    const parsed = settingsSchema.safeParse(this.conf.store);
    if (parsed.success) return parsed.data;
    // Valid JSON with the wrong shape: set it aside rather than lose it, then use defaults.
    const file = this.conf.path;
    if (existsSync(file)) copyFileSync(file, `${file}.invalid-${Date.now()}`);
    const fresh = defaultSettings();
    this.write(fresh);
    return fresh;
  }

  write(next: SettingsData): void {
    this.conf.store = settingsSchema.parse(next) as unknown as RawSettings;
  }

  update(mutate: (current: SettingsData) => SettingsData): SettingsData {
    const next = settingsSchema.parse(mutate(this.read()));
    this.write(next);
    return next;
  }
}

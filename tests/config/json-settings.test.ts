// settings.json as the app, the CLI and the harness share it: validated on every read, written
// atomically, and a file that cannot be used is kept beside itself, said once, and replaced by
// the defaults. Files written by earlier versions (through conf / electron-store) still read.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonSettingsStore } from '@main/config/json-settings';
import { defaultSettings, settingsSetAsideNotice, type SettingsData, type SettingsSetAside } from '@main/config/settings';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flowdeck-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = (): string => join(dir, 'settings.json');
const withProfile = (current: SettingsData): SettingsData => ({
  ...current,
  profiles: [{ id: 'p1', name: 'Studio box', kind: 'local', baseUrl: 'http://10.0.0.5:8188' }],
  activeProfileId: 'p1',
});

describe('JsonSettingsStore', () => {
  it('answers the defaults without creating a file when there is none', () => {
    expect(new JsonSettingsStore(dir).read()).toEqual(defaultSettings());
    expect(readdirSync(dir)).toEqual([]);
  });

  it('writes the whole settings atomically, readable by the owner only, and reads them back', () => {
    const store = new JsonSettingsStore(dir);
    const written = store.update(withProfile);
    expect(store.read()).toEqual(written);
    // Only the file itself is left: no temporary name beside it.
    expect(readdirSync(dir)).toEqual(['settings.json']);
    if (process.platform !== 'win32') expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toMatchObject({ activeProfileId: 'p1' });
  });

  it('creates the data folder on first write', () => {
    const nested = join(dir, 'a', 'b');
    new JsonSettingsStore(nested).update(withProfile);
    expect(new JsonSettingsStore(nested).read().activeProfileId).toBe('p1');
  });

  it('sees what another process wrote since (every read goes to the file)', () => {
    const app = new JsonSettingsStore(dir);
    const cli = new JsonSettingsStore(dir);
    expect(app.read().activeProfileId).toBeNull();
    cli.update(withProfile);
    expect(app.read().activeProfileId).toBe('p1');
  });

  it('reads a file written by an earlier version through conf (tabs, its internal key)', () => {
    const older = {
      __internal__: { migrations: { version: '0.9.0' } },
      profiles: [{ id: 'x', name: 'Cloud', kind: 'cloud', baseUrl: 'https://cloud.comfy.org' }],
      activeProfileId: 'x',
    };
    writeFileSync(file(), JSON.stringify(older, undefined, '\t'));
    const store = new JsonSettingsStore(dir);
    const seen: SettingsSetAside[] = [];
    store.onSetAside((event) => seen.push(event));
    expect(store.read()).toMatchObject({ activeProfileId: 'x', profiles: [{ name: 'Cloud' }] });
    expect(seen).toEqual([]);
  });

  it('keeps a file that is not JSON beside itself, starts from the defaults, and says so once', () => {
    const damaged = '{"profiles": [ {"id": "p1", "name": "Studio';
    writeFileSync(file(), damaged);
    const store = new JsonSettingsStore(dir);
    const early: SettingsSetAside[] = [];
    store.onSetAside((event) => early.push(event));
    expect(store.read()).toEqual(defaultSettings());
    expect(early).toHaveLength(1);
    expect(early[0]!.reason).toBe('damaged');
    expect(readFileSync(early[0]!.copy, 'utf8')).toBe(damaged);
    expect(early[0]!.copy).toMatch(/settings\.json\.damaged-\d+$/);
    // The file now holds the defaults: the next read sets nothing aside.
    expect(store.read()).toEqual(defaultSettings());
    expect(early).toHaveLength(1);
    // A listener that comes later (the app core, after the window read its size) hears it too.
    const late: SettingsSetAside[] = [];
    store.onSetAside((event) => late.push(event));
    expect(late).toEqual(early);
    expect(settingsSetAsideNotice(early[0]!)).toContain(early[0]!.copy);
  });

  it('keeps JSON of the wrong shape as ".invalid-" and starts from the defaults', () => {
    writeFileSync(file(), JSON.stringify({ profiles: 'not a list' }));
    const store = new JsonSettingsStore(dir);
    const seen: SettingsSetAside[] = [];
    store.onSetAside((event) => seen.push(event));
    expect(store.read()).toEqual(defaultSettings());
    expect(seen.map((event) => event.reason)).toEqual(['invalid']);
    expect(JSON.parse(readFileSync(seen[0]!.copy, 'utf8'))).toEqual({ profiles: 'not a list' });
  });

  it('refuses to write settings that are not valid, and keeps the file as it was', () => {
    const store = new JsonSettingsStore(dir);
    store.update(withProfile);
    const before = readFileSync(file(), 'utf8');
    expect(() => store.update((current) => ({ ...current, recentWorkflows: 'x' as unknown as string[] }))).toThrow();
    expect(readFileSync(file(), 'utf8')).toBe(before);
  });
});

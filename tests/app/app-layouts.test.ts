// The apps kept in Flowdeck's own store (apps.get / apps.keep through the core): an API file's
// pinned inputs survive a new core over the same data folder; found by content, then by the same
// file's graph, then by the graph alone; a damaged store file is set aside, not lost.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppLayoutKey } from '@shared/ipc/contract';
import { AppLayoutStore, MAX_KEPT_APPS } from '@main/app/app-layout-store';
import { tempCore, type TempCore } from './fakes';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);
const key = (over: Partial<AppLayoutKey> = {}): AppLayoutKey => ({ path: '/work/flows/text-to-image.json', contentHash: HASH_A, shape: 'shape-1', ...over });
const pins = [
  { nodeId: '3', name: 'steps' },
  { nodeId: '6', name: 'text' },
];

describe('the app store, through the core', () => {
  const cores: TempCore[] = [];
  afterEach(async () => {
    for (const c of cores.splice(0)) await c.cleanup();
  });

  it('keeps an app in apps.json and a fresh core over the same folder finds it', async () => {
    const first = tempCore();
    cores.push(first);
    const none = await first.core.invoke('apps.get', key());
    expect(none).toEqual({ ok: true, value: null });
    const kept = await first.core.invoke('apps.keep', { key: key(), inputs: pins });
    expect(kept.ok).toBe(true);
    expect(existsSync(join(first.dataDir, 'apps.json'))).toBe(true);
    // No partial file is left beside it.
    expect(readdirSync(first.dataDir).filter((n) => n.includes('.part-'))).toEqual([]);

    const second = tempCore({ dataDir: first.dataDir });
    const found = await second.core.invoke('apps.get', key());
    await second.core.dispose();
    expect(found.ok && found.value).toMatchObject({ inputs: pins, match: 'content' });
  });

  it('refuses a malformed key with invalid_input', async () => {
    const c = tempCore();
    cores.push(c);
    const answer = await c.core.invoke('apps.keep', { key: { path: null, contentHash: 'not a hash', shape: 's' }, inputs: pins });
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error.code).toBe('invalid_input');
  });
});

describe('AppLayoutStore', () => {
  const dirs: TempCore[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await d.cleanup();
  });
  const folder = (): string => {
    const c = tempCore();
    dirs.push(c);
    return c.dataDir;
  };

  it('matches the same content first, then the same file with the same graph, then the same graph', async () => {
    let now = 1000;
    const store = new AppLayoutStore({ dataDir: folder(), now: () => (now += 1) });
    await store.keep(key(), pins);
    // The same file with other values (another content hash), the same graph: found by path.
    expect(await store.get(key({ contentHash: HASH_B }))).toMatchObject({ inputs: pins, match: 'path' });
    // Another file, or no file, with the same graph: found by shape.
    expect(await store.get(key({ path: null, contentHash: HASH_B }))).toMatchObject({ match: 'shape' });
    // Another graph: nothing.
    expect(await store.get(key({ path: null, contentHash: HASH_B, shape: 'other' }))).toBeNull();
    // The same content under another path: the content wins over anything else.
    const other = [{ nodeId: '9', name: 'filename_prefix' }];
    await store.keep(key({ path: '/elsewhere.json', contentHash: HASH_B }), other);
    expect(await store.get(key({ path: '/third.json', contentHash: HASH_B }))).toMatchObject({ inputs: other, match: 'content' });
    // Keeping again for the same file's graph replaces the record kept for it.
    const reordered = [...pins].reverse();
    await store.keep(key({ contentHash: 'c'.repeat(64) }), reordered);
    expect(await store.get(key())).toMatchObject({ inputs: reordered, match: 'path' });
  });

  it('sets a damaged store file aside and starts empty', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'apps.json'), '{"version": 1, "apps": [ broken');
    const logged: string[] = [];
    const store = new AppLayoutStore({ dataDir: dir, log: (m) => logged.push(m) });
    expect(await store.get(key())).toBeNull();
    const aside = readdirSync(dir).filter((n) => n.startsWith('apps.json.damaged-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dir, aside[0]!), 'utf8')).toContain('broken');
    expect(logged.join('\n')).toMatch(/set aside/);
    await store.keep(key(), pins);
    expect(JSON.parse(readFileSync(join(dir, 'apps.json'), 'utf8'))).toMatchObject({ version: 1, apps: [{ inputs: pins }] });
  });

  it('keeps at most its limit (MAX_KEPT_APPS by default), the least recently saved going first', async () => {
    expect(MAX_KEPT_APPS).toBe(1000);
    const dir = folder();
    let now = 0;
    const store = new AppLayoutStore({ dataDir: dir, now: () => (now += 1), limit: 5 });
    const hash = (n: number): string => n.toString(16).padStart(64, '0');
    for (let n = 0; n < 8; n += 1) await store.keep({ path: null, contentHash: hash(n), shape: `s${n}` }, pins);
    const saved = JSON.parse(readFileSync(join(dir, 'apps.json'), 'utf8')) as { apps: { contentHash: string }[] };
    expect(saved.apps.map((a) => a.contentHash)).toEqual([7, 6, 5, 4, 3].map(hash));
  });

  it('writes keeps made at once one after the other, the last file holding them all', async () => {
    const dir = folder();
    const store = new AppLayoutStore({ dataDir: dir });
    const hash = (n: number): string => n.toString(16).padStart(64, '0');
    await Promise.all([0, 1, 2, 3].map((n) => store.keep({ path: null, contentHash: hash(n), shape: `s${n}` }, pins)));
    const saved = JSON.parse(readFileSync(join(dir, 'apps.json'), 'utf8')) as { apps: { contentHash: string }[] };
    expect(saved.apps.map((a) => a.contentHash).sort()).toEqual([0, 1, 2, 3].map(hash));
    expect(readdirSync(dir).filter((n) => n.includes('.part-'))).toEqual([]);
  });
});

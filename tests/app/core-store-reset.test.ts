// The app on a damaged data store or settings file: it starts (no crash loop), with a fresh store
// or the default settings, the damaged file kept beside it, and a notice for the window, repeated
// to every window that opens afterwards.
import { randomBytes } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppEvent } from '@main/app/event-hub';
import { demoCoreInTemp, type DemoCore } from '../support/demo-core';

let demo: DemoCore | null = null;

afterEach(async () => {
  await demo?.close();
  demo = null;
});

describe('the app core on a damaged store', () => {
  it('starts with a fresh store and tells the window, now and on every renderer.ready', async () => {
    demo = demoCoreInTemp('flowdeck-core-reset-', { prepare: (dataDir) => writeFileSync(join(dataDir, 'flowdeck.sqlite'), randomBytes(16 * 1024)) });
    const { core, dataDir, events, logs } = demo;
    await core.start();
    const notices = (): AppEvent[] => events.filter((e) => e.name === 'app.notice');
    expect(notices()).toHaveLength(1);
    expect(notices()[0]!.payload).toMatchObject({ level: 'warning', message: expect.stringMatching(/data store was damaged.*moved aside/) });
    expect(logs.some((l) => l.startsWith('warn The local data store was damaged'))).toBe(true);
    expect(readdirSync(dataDir).some((n) => n.startsWith('flowdeck.sqlite.corrupt-'))).toBe(true);
    const list = await core.invoke('jobs.list', undefined);
    expect(list).toMatchObject({ ok: true });
    await core.invoke('renderer.ready', undefined);
    expect(notices()).toHaveLength(2);
  });

  it('starts on the default settings when settings.json is damaged, keeps the file and tells the window', async () => {
    demo = demoCoreInTemp('flowdeck-core-settings-', { prepare: (dataDir) => writeFileSync(join(dataDir, 'settings.json'), '{"profiles": [') });
    const { core, dataDir, events } = demo;
    await core.start();
    const notices = (): AppEvent[] => events.filter((e) => e.name === 'app.notice');
    expect(notices()).toHaveLength(1);
    expect(notices()[0]!.payload).toMatchObject({
      level: 'warning',
      message: expect.stringMatching(/settings file was damaged.*kept as .*settings\.json\.damaged-\d+/),
    });
    expect(readdirSync(dataDir).filter((n) => n.startsWith('settings.json.damaged-'))).toHaveLength(1);
    // It started on the demo, as a first start does.
    const listed = await core.invoke('profiles.list', undefined);
    expect(listed).toMatchObject({ ok: true });
    await core.invoke('renderer.ready', undefined);
    expect(notices()).toHaveLength(2);
  });
});

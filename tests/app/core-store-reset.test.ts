// The app on a damaged data store: it starts (no crash loop), with a fresh store, the damaged file
// kept beside it, and a notice for the window, repeated to every window that opens afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnectFactory } from '../../src/main/app/connect';
import { createAppCore, type AppCore } from '../../src/main/app/core';
import { createDemoStarter } from '../../src/main/app/demo';
import type { AppEvent } from '../../src/main/app/event-hub';
import { ConfSettingsStore } from '../../src/main/config/conf-settings';
import { SessionSecretStore } from '../../src/main/config/secrets';

let core: AppCore | null = null;
let dataDir = '';

afterEach(async () => {
  await core?.dispose();
  core = null;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the app core on a damaged store', () => {
  it('starts with a fresh store and tells the window, now and on every renderer.ready', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-core-reset-'));
    writeFileSync(join(dataDir, 'flowdeck.sqlite'), randomBytes(16 * 1024));
    const events: AppEvent[] = [];
    const logs: string[] = [];
    core = createAppCore({
      settings: new ConfSettingsStore(dataDir),
      secrets: new SessionSecretStore(),
      dataDir,
      startDemo: createDemoStarter({ timeScale: 0.05 }),
      connect: createConnectFactory(),
      version: '9.9.9',
      allowAnyPath: true,
      log: (level, message) => void logs.push(`${level} ${message}`),
    });
    core.onEvent((event) => void events.push(event));
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
});

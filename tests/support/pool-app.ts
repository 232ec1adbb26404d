// What the app-core pool tests share: two real local demo services (slow enough that jobs overlap,
// so a pool must spread them), a fresh data folder per test, and an app core whose events are kept.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { AppCore } from '@main/app/core';
import { DemoService } from '../../src/main/demo';
import type { EventName, EventPayload } from '@shared/ipc/contract';
import { demoAppCore } from './demo-core';

export interface PoolApp {
  first: DemoService;
  second: DemoService;
  /** This test's work folder (removed after it) and its data folder inside. */
  work: string;
  dataDir: string;
  events: { name: EventName; payload: unknown }[];
  /** Starts the core on this test's data folder (disposed after the test). */
  openCore(): Promise<AppCore>;
  payloads<E extends EventName>(name: E): EventPayload<E>[];
}

/** Registers the hooks; the returned object's fields are valid inside tests. */
export function poolAppFixture(prefix: string): PoolApp {
  let core: AppCore | null = null;
  const app: PoolApp = {
    first: null as unknown as DemoService,
    second: null as unknown as DemoService,
    work: '',
    dataDir: '',
    events: [],
    async openCore() {
      core = demoAppCore(app.dataDir);
      core.onEvent((event) => void app.events.push({ name: event.name, payload: event.payload }));
      await core.start();
      await core.invoke('renderer.ready', undefined);
      return core;
    },
    payloads<E extends EventName>(name: E): EventPayload<E>[] {
      return app.events.filter((e) => e.name === name).map((e) => e.payload as EventPayload<E>);
    },
  };
  beforeAll(async () => {
    app.first = new DemoService({ flavour: 'local', timeScale: 0.3 });
    app.second = new DemoService({ flavour: 'local', timeScale: 0.3 });
    await Promise.all([app.first.start(), app.second.start()]);
  });
  afterAll(async () => {
    await Promise.all([app.first.stop(), app.second.stop()]);
  });
  beforeEach(() => {
    app.work = mkdtempSync(join(tmpdir(), prefix));
    app.dataDir = join(app.work, 'data');
    app.events.length = 0;
  });
  afterEach(async () => {
    await core?.dispose();
    core = null;
    rmSync(app.work, { recursive: true, force: true });
  });
  return app;
}

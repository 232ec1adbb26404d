// What can wait for the first screen waits for it (issue 25), and still happens: FirstScreen's
// timing, and through the app core on the demo service, a saved hot folder with an image in it
// starts only once a renderer is ready (plus a moment), or without any renderer after the wait;
// a hotFolders call made before then waits for the start instead of seeing the folder stopped.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HotFileView, HotFolderView } from '@shared/ipc/hot-folders-contract';
import type { AppCore } from '@main/app/core';
import { FirstScreen } from '@main/app/first-screen';
import { Store } from '@main/store/store';
import { resolveHotFolderConfig } from '@main/watch/config';
import { WatchJournal } from '@main/watch/journal';
import { storedConfigText } from '@main/watch/service';
import { invertWorkflow, makePng, until } from '../watch/helpers';
import { demoAppCore } from '../support/demo-core';

describe('FirstScreen', () => {
  it('is up a moment after a renderer is ready, or after the wait without one, or at once when released', async () => {
    const settled = (screen: FirstScreen): { done: boolean } => {
      const state = { done: false };
      void screen.shown().then(() => (state.done = true));
      return state;
    };
    const withRenderer = new FirstScreen({ settleMs: 40, waitMs: 5000 });
    const a = settled(withRenderer);
    withRenderer.startClock();
    await new Promise((r) => setTimeout(r, 30));
    expect(a.done).toBe(false);
    withRenderer.rendererReady();
    await new Promise((r) => setTimeout(r, 20));
    expect(a.done).toBe(false);
    await until(() => a.done, 'the first screen after renderer.ready', 1000);

    const alone = new FirstScreen({ settleMs: 40, waitMs: 120 });
    const b = settled(alone);
    alone.startClock();
    await new Promise((r) => setTimeout(r, 60));
    expect(b.done).toBe(false);
    await until(() => b.done, 'the first screen without a renderer', 1000);

    const stopped = new FirstScreen({ settleMs: 40, waitMs: 5000 });
    const c = settled(stopped);
    stopped.release();
    await Promise.resolve();
    await Promise.resolve();
    expect(c.done).toBe(true);
  });
});

describe('hot folders after the first screen', () => {
  let work = '';
  let dataDir = '';
  let inDir = '';
  const cores: AppCore[] = [];

  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), 'flowdeck-first-screen-'));
    dataDir = join(work, 'data');
    inDir = join(work, 'in');
    mkdirSync(inDir, { recursive: true });
    mkdirSync(dataDir, { recursive: true });
    // A folder saved by an earlier run, with an image waiting in it.
    const store = await Store.open(join(dataDir, 'flowdeck.sqlite'));
    const journal = await WatchJournal.open(store);
    const config = resolveHotFolderConfig(
      {
        name: 'waiting',
        inputDir: inDir,
        outputDir: join(work, 'out'),
        workflow: invertWorkflow(),
        workflowName: 'invert.json',
        bind: '1.image',
        settleMs: 100,
      },
      randomUUID,
    );
    await journal.saveFolder(config.id, storedConfigText(config), Date.now(), false);
    await journal.flushed();
    await store.close();
    writeFileSync(join(inDir, 'one.png'), makePng(1));
  });

  afterEach(async () => {
    for (const core of cores.splice(0)) await core.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  async function started(): Promise<{ core: AppCore; rows: () => HotFileView[] }> {
    const core = demoAppCore(dataDir);
    cores.push(core);
    const rows: HotFileView[] = [];
    core.onEvent((event) => {
      if (event.name === 'hotFolders.file') rows.push(event.payload as HotFileView);
    });
    await core.start();
    return { core, rows: () => rows };
  }

  const done = (rows: HotFileView[]): boolean => rows.some((r) => r.relPath === 'one.png' && r.state === 'done');

  it('starts the saved folders once the renderer is ready, not before', async () => {
    const { core, rows } = await started();
    // The core is up and connected soon; the folder has not looked at its image yet.
    await new Promise((r) => setTimeout(r, 600));
    expect(rows()).toEqual([]);
    await core.invoke('renderer.ready', undefined);
    await until(() => done(rows()), 'the waiting image run after renderer.ready', 15_000);
  });

  it('starts them without a renderer after the wait, and a call before then waits for the start', async () => {
    const { core, rows } = await started();
    const listed = await core.invoke('hotFolders.list', undefined);
    expect(listed.ok).toBe(true);
    const folders = (listed as { ok: true; value: { folders: HotFolderView[] } }).value.folders;
    expect(folders).toHaveLength(1);
    // Answered after the start: running on the demo server, not "paused, no server".
    expect(folders[0]!.status.paused).toBe(false);
    await until(() => done(rows()), 'the waiting image run without a renderer', 15_000);
  });
});

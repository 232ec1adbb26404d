// HotFolderService as the app core hosts it: saved folders come back after a restart (a folder
// the user paused stays paused), update() restarts a folder with its new settings and keeps its
// journal, remove() forgets it, a cap on jobs in flight is respected, and a failed file replaced
// by a good one is no longer reported as failed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { folderInput, invertWorkflow, makePng, openHarness, totalSubmissions, until, type Harness } from './helpers';

let demo: DemoService;
const open: Harness[] = [];

beforeAll(async () => {
  demo = new DemoService({ flavour: 'local', timeScale: 1, cache: false });
  await demo.start();
});

afterAll(async () => {
  await demo.stop();
});

afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function harness(options: Parameters<typeof openHarness>[1] = {}): Promise<Harness> {
  const h = await openHarness(demo, options);
  open.push(h);
  return h;
}

describe('HotFolderService', () => {
  it('brings saved folders back after a restart, a paused one still paused, and forgets removed ones', async () => {
    const first = await harness();
    mkdirSync(first.inDir, { recursive: true });
    const config = await first.hot.add(folderInput(first, { name: 'Scans' }));
    first.hot.pause(config.id);
    writeFileSync(join(first.inDir, 'later.png'), makePng(801));
    await until(() => first.hot.counters(config.id).waiting === 1, 'the file waiting in the paused folder');
    await first.hot.dispose();

    const second = await harness({ storePath: join(first.work, 'flowdeck.sqlite'), work: first.work });
    const listed = second.hot.list();
    expect(listed.map((f) => f.config.name)).toEqual(['Scans']);
    expect(listed[0]!.config.workflow).toEqual(invertWorkflow());
    await second.hot.whenIdle(config.id);
    expect(second.hot.status(config.id)).toMatchObject({ paused: true, pauseKind: 'user', counters: { waiting: 1, done: 0 } });
    second.hot.resume(config.id);
    await until(() => second.hot.counters(config.id).done === 1, 'the file done after resume');

    await second.hot.remove(config.id);
    expect(second.hot.list()).toEqual([]);
    expect(await second.store.all('SELECT * FROM watch_entries WHERE folder_id = ?', [config.id])).toEqual([]);
    expect(await second.store.all('SELECT * FROM watch_folders')).toEqual([]);
  });

  it('update() restarts a folder with its new settings and keeps what it knew', async () => {
    const h = await harness();
    mkdirSync(h.inDir, { recursive: true });
    writeFileSync(join(h.inDir, 'one.png'), makePng(811));
    const config = await h.hot.add(folderInput(h));
    await until(() => h.hot.counters(config.id).done === 1, 'one done');
    const before = totalSubmissions(demo);
    const updated = await h.hot.update(config.id, { outputName: 'renamed/{stem}-{index}.{ext}' });
    expect(updated.outputName).toBe('renamed/{stem}-{index}.{ext}');
    writeFileSync(join(h.inDir, 'two.png'), makePng(812));
    await until(() => h.hot.counters(config.id).done === 2, 'two done');
    expect(totalSubmissions(demo) - before).toBe(1); // one.png was not sent again
    const two = h.hot.files(config.id).find((r) => r.relPath === 'two.png')!;
    expect(two.outputs).toEqual([join(h.outDir, 'renamed', 'two-1.png')]);
    await expect(h.hot.update(config.id, { bind: '42.image' })).rejects.toThrow(/no node "42"/);
  });

  it('keeps at most `concurrency` jobs in flight', async () => {
    const h = await harness();
    mkdirSync(h.inDir, { recursive: true });
    for (let i = 0; i < 6; i += 1) writeFileSync(join(h.inDir, `c${i}.png`), makePng(820 + i));
    // a slow node, so that jobs overlap on the server
    const workflow = {
      ...invertWorkflow(),
      '4': { class_type: 'DemoSampler', inputs: { prompt: 'p', seed: 1, steps: 2, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 40 } },
      '5': { class_type: 'PreviewImage', inputs: { images: ['4', 0] } },
    };
    let peak = 0;
    h.hot.on((event) => {
      if (event.type === 'folder') peak = Math.max(peak, event.status.counters.running);
    });
    const config = await h.hot.add(folderInput(h, { workflow, concurrency: 2 }));
    await until(() => h.hot.counters(config.id).done === 6, 'all six done', 15_000);
    expect(peak).toBe(2);
  });

  it('a failed file overwritten with a good image runs, and is no longer reported as failed', async () => {
    const h = await harness();
    mkdirSync(h.inDir, { recursive: true });
    const path = join(h.inDir, 'fixme.png');
    writeFileSync(path, 'not yet an image');
    const config = await h.hot.add(folderInput(h));
    await until(() => h.hot.counters(config.id).failed === 1, 'the text file failed');
    writeFileSync(path, makePng(830));
    await until(() => h.hot.counters(config.id).done === 1, 'the replaced file done');
    expect(h.hot.counters(config.id).failed).toBe(0);
    expect(h.hot.files(config.id).map((r) => [r.relPath, r.state])).toEqual([['fixme.png', 'done']]);
  });
});

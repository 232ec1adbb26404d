// Hot folders through the app core on a v2-only deployment (the real demo, served as a
// self-hosted proxy without a token: no node definitions, no queue), with a workflow that takes
// an image and a mask. One mask shared by every file (a second LoadImage holding the asset the
// app uploaded once) crosses the network once per server, also on a pool; masks paired by the
// folder's mask rule travel composed into their image (v2 has no mask upload). Every file runs
// once (one job per Idempotency-Key) and its output lands in the output folder.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HotFileView, HotFolderView } from '@shared/ipc/hot-folders-contract';
import type { Workflow } from '@main/service/types';
import type { DemoService } from '../../src/main/demo';
import { demoCoreInTemp, ok, type DemoCore } from '../support/demo-core';
import { makeMask, makePng, until } from '../watch/helpers';
import { startDemo } from '../v2/support';

let work = '';
let inDir = '';
let outDir = '';
const cores: DemoCore[] = [];

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'flowdeck-hot-v2-'));
  inDir = join(work, 'in');
  outDir = join(work, 'out');
  mkdirSync(inDir, { recursive: true });
});

afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
  rmSync(work, { recursive: true, force: true });
});

/** The inpaint sample with its mask taken from a second image (`mask`: that image's input value). */
function inpaint(mask: string | null): Workflow {
  return {
    '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
    ...(mask === null ? {} : { '4': { class_type: 'LoadImage', inputs: { image: mask } } }),
    '2': { class_type: 'DemoInpaint', inputs: { image: ['1', 0], mask: mask === null ? ['1', 1] : ['4', 1], seed: 7, fill: 'solid' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'hot-v2' } },
  };
}

/** A folder running the inpaint sample on each file, with `mask` (an uploaded input's value) shared by all. */
function sharedMaskFolder(c: DemoCore, mask: string, runOn: 'active' | 'pool'): Promise<HotFolderView> {
  return ok(c.core, 'hotFolders.save', {
    inputDir: inDir,
    outputDir: outDir,
    workflowJson: JSON.stringify(inpaint(mask)),
    workflowName: 'inpaint.json',
    bind: '1.image',
    maskRule: null,
    settleMs: 150,
    runOn,
  });
}

/** A started core whose active profile is a proxy profile (no key) for the v2-only demo `svc`. */
async function coreOn(svc: DemoService): Promise<DemoCore> {
  const c = demoCoreInTemp('flowdeck-hot-v2-core-');
  cores.push(c);
  await c.core.start();
  await ok(c.core, 'renderer.ready');
  const profile = await ok(c.core, 'profiles.save', { name: 'Deployment', kind: 'proxy', baseUrl: svc.url, select: true });
  await until(
    () =>
      c.events.some(
        (e) =>
          e.name === 'connection.state' &&
          (e.payload as { profileId: string; state: string }).profileId === profile.id &&
          (e.payload as { state: string }).state === 'connected',
      ),
    'the deployment connected',
    20_000,
  );
  return c;
}

function latestRows(c: DemoCore): Map<string, HotFileView> {
  const rows = new Map<string, HotFileView>();
  for (const e of c.events) if (e.name === 'hotFolders.file') rows.set((e.payload as HotFileView).path, e.payload as HotFileView);
  return rows;
}

function drained(c: DemoCore, folderId: string, done: number): boolean {
  return c.events.some((e) => {
    if (e.name !== 'hotFolders.drained') return false;
    const d = e.payload as { folderId: string; counters: { done: number; failed: number } };
    return d.folderId === folderId && d.counters.done + d.counters.failed >= done;
  });
}

/** Every job the server made, one per Idempotency-Key (never a second job for one file). */
function jobsPerKey(svc: DemoService): number[] {
  return [...svc.v2!.stats.jobsByKey.values()];
}

describe('hot folders in the app on a v2-only deployment', () => {
  it('runs every file once with one shared mask, which crosses the network once', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const c = await coreOn(svc);
    // The mask as the Run form puts it up: once, as an asset.
    const mask = (await ok(c.core, 'upload.image', { name: 'shared-mask.png', bytes: new Uint8Array(makeMask(8, 6)) }))!;
    expect(mask.inputValue).toMatch(/^core\/ASSET:/);
    expect(svc.v2!.stats.assetUploads).toBe(1);

    const folder = await sharedMaskFolder(c, mask.inputValue, 'active');
    const names = ['a.png', 'b.png', 'c.png', 'd.png'];
    names.forEach((name, i) => writeFileSync(join(inDir, name), makePng(800 + i)));
    await until(() => drained(c, folder.id, names.length), 'the folder drained', 40_000);

    const rows = latestRows(c);
    for (const name of names) {
      const row = rows.get(join(inDir, name));
      expect(row, name).toMatchObject({ state: 'done', reason: null });
      expect(row!.outputs).toHaveLength(1);
      expect(existsSync(row!.outputs[0]!)).toBe(true);
    }
    // One job per file, each sent under its own key once; the shared mask was never sent again.
    expect(svc.v2!.stats.submitRequests).toBe(names.length);
    expect(jobsPerKey(svc)).toEqual(names.map(() => 1));
    expect(svc.v2!.stats.assetUploads).toBe(1 + names.length);
  });

  it('on a pool of two deployments, puts the shared mask on the other server once, and runs every file once', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const other = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const c = await coreOn(svc);
    const second = await ok(c.core, 'profiles.save', { name: 'Second', kind: 'proxy', baseUrl: other.url });
    const first = (await ok(c.core, 'profiles.list')).profiles.find((p) => p.name === 'Deployment')!;
    await ok(c.core, 'pool.save', {
      servers: [
        { profileId: first.id, concurrency: 1 },
        { profileId: second.id, concurrency: 1 },
      ],
    });
    // The mask goes up to the active server (the Run form's upload); the folder runs on the pool.
    const mask = (await ok(c.core, 'upload.image', { name: 'shared-mask.png', bytes: new Uint8Array(makeMask(8, 6)) }))!;
    const folder = await sharedMaskFolder(c, mask.inputValue, 'pool');
    const names = ['a.png', 'b.png', 'c.png', 'd.png', 'e.png', 'f.png'];
    names.forEach((name, i) => writeFileSync(join(inDir, name), makePng(820 + i)));
    await until(() => drained(c, folder.id, names.length), 'the folder drained', 40_000);

    const rows = [...latestRows(c).values()];
    expect(rows.map((r) => `${r.relPath}:${r.state}`).sort()).toEqual(names.map((n) => `${n}:done`));
    const onSecond = rows.filter((r) => r.serverName === 'Second').length;
    expect(onSecond).toBeGreaterThan(0);
    expect(onSecond).toBeLessThan(names.length);
    // Each file once, on one server; the mask crossed once per server (the second got its copy once).
    expect(svc.v2!.stats.submitRequests + other.v2!.stats.submitRequests).toBe(names.length);
    expect([...jobsPerKey(svc), ...jobsPerKey(other)]).toEqual(names.map(() => 1));
    expect(svc.v2!.stats.assetUploads).toBe(1 + (names.length - onSecond));
    expect(other.v2!.stats.assetUploads).toBe(1 + onSecond);
  });

  it("pairs each image with its mask by the folder's mask rule, composed into the image (no mask upload of its own)", async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const c = await coreOn(svc);
    const folder: HotFolderView = await ok(c.core, 'hotFolders.save', {
      inputDir: inDir,
      outputDir: outDir,
      workflowJson: JSON.stringify(inpaint(null)),
      workflowName: 'inpaint.json',
      bind: '1.image',
      maskRule: '{stem}.mask.png',
      settleMs: 150,
    });
    const names = ['cat', 'dog', 'owl'];
    // The masks first, so each image finds its own when it settles.
    for (const name of names) writeFileSync(join(inDir, `${name}.mask.png`), makeMask(8, 6));
    names.forEach((name, i) => writeFileSync(join(inDir, `${name}.png`), makePng(900 + i)));
    await until(() => drained(c, folder.id, names.length), 'the folder drained', 40_000);

    const rows = latestRows(c);
    for (const name of names) {
      const row = rows.get(join(inDir, `${name}.png`));
      expect(row, name).toMatchObject({ state: 'done', reason: null });
      expect(existsSync(row!.outputs[0]!)).toBe(true);
    }
    // The masks are no inputs of their own.
    for (const name of names) expect(rows.has(join(inDir, `${name}.mask.png`))).toBe(false);
    expect(svc.v2!.stats.submitRequests).toBe(names.length);
    expect(jobsPerKey(svc)).toEqual(names.map(() => 1));
    // Per file, only its image with its mask composed in (jobs/upload-input.ts): never the
    // original alone, never a mask by itself.
    expect(svc.v2!.stats.assetUploads).toBe(names.length);
  });
});

// Hot folders at scale (run: npx tsx bench/hot-folders.ts [files] [existing]):
//  1. 1,000 distinct images dropped at once into a watched folder: time until every one is done
//     (uploaded, run, output downloaded, sidecar written), as a ratio to the floor, which is the
//     same jobs sent directly (upload, submit, follow, download) with the same client stack and
//     concurrency, so the ratio is what the hot folder adds (settle interval, hashing, journal,
//     naming, sidecars). Peak RSS of this process during the run.
//  2. Discovery in a folder that already holds 10,000 images (folder paused, so nothing is sent):
//     time until every file is listed, until every file is keyed and queued, and the same after a
//     restart (the journal knows the files: nothing is read again). Peak RSS.
// The demo service (local flavour, instant nodes) runs in its own process.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobTracker } from '@main/jobs/tracker';
import { Store } from '@main/store/store';
import { ServiceClient } from '@main/service/client';
import { EventsSocket } from '@main/service/events-socket';
import type { ServerProfile, Workflow } from '@main/service/types';
import { HotFolderService, trackerFollower } from '../src/main/watch';
import { distinctPng as png } from './support/images';
import { startDemoChild } from './support/processes';

const FILES = Number(process.argv[2] ?? 1000);
const EXISTING = Number(process.argv[3] ?? 10_000);
const CONCURRENCY = 8;
const SETTLE_MS = 200;

// The floor and the hot folder save under different prefixes (and each runs on a fresh demo
// service): the server numbers outputs by listing its output folder and lists its input folder
// for LoadImage, so sharing them would make whichever runs second pay for the first.
function workflow(prefix: string): Workflow {
  return {
    '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
  };
}
const FLOOR_WORKFLOW = workflow('bench/floor');
const WORKFLOW = workflow('bench/hot');

/** Peak RSS (what the OS sees) and peak V8 heap in use (live objects plus garbage not yet collected). */
/**
 * Writes `count` distinct 8x8 PNGs in a child process: encoding ten thousand PNGs leaves this
 * process's memory fragmented, which would then be counted as the hot folder's.
 */
function writeImagesInChild(dir: string, count: number): void {
  const script = `
    import { writeFileSync } from 'node:fs';
    import { join } from 'node:path';
    import { PNG } from 'pngjs';
    const [dir, count] = [process.argv[1], Number(process.argv[2])];
    for (let i = 0; i < count; i += 1) {
      const image = new PNG({ width: 8, height: 8 });
      for (let p = 0; p < 64; p += 1) { image.data.writeUInt32BE(((i + 1) * 2654435761 ^ (p + 7) * 40503) >>> 0, p * 4); image.data[p * 4 + 3] = 255; }
      writeFileSync(join(dir, 'old-' + String(i).padStart(5, '0') + '.png'), PNG.sync.write(image));
    }`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, dir, String(count)], {
    cwd: join(import.meta.dirname, '..'),
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('writing the existing files failed');
}

class PeakRss {
  readonly base = process.memoryUsage().rss;
  peak = this.base;
  peakHeap = process.memoryUsage().heapUsed;
  private readonly timer = setInterval(() => this.sample(), 25);
  private sample(): void {
    const m = process.memoryUsage();
    this.peak = Math.max(this.peak, m.rss);
    this.peakHeap = Math.max(this.peakHeap, m.heapUsed);
  }
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}

const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(0)} MB`;
const secs = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

async function connect(profile: ServerProfile) {
  const api = new ServiceClient(profile, { apiKey: () => null });
  const events = new EventsSocket(profile, { apiKey: () => null });
  const tracker = new JobTracker({ api, events, pollIntervalMs: 1000, staleAfterMs: 1000, keepEnded: 50 });
  events.start();
  await new Promise<void>((resolve) => (events.state === 'connected' ? resolve() : events.onStateChange((s) => s === 'connected' && resolve())));
  return {
    api,
    events,
    tracker,
    async close() {
      await tracker.dispose();
      await events.dispose();
    },
  };
}

/** The floor: the same jobs sent directly (upload, submit, follow, download), CONCURRENCY at a time. */
async function floor(profile: ServerProfile, dir: string, names: string[], outDir: string): Promise<number> {
  const c = await connect(profile);
  mkdirSync(outDir, { recursive: true });
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const name = names[next++]!;
      const uploaded = await c.api.uploadImage(join(dir, name), { type: 'input' });
      const workflow = structuredClone(FLOOR_WORKFLOW);
      (workflow['1'] as { inputs: Record<string, unknown> }).inputs.image = uploaded.name;
      const { promptId } = await c.api.submit(workflow, { clientId: c.events.clientId, promptId: randomUUID() });
      const end = await c.tracker.track(promptId, { workflow }).waitForEnd();
      if (end.phase !== 'succeeded') throw new Error(`floor job ${promptId} ended ${end.phase}`);
      for (const output of end.outputs) await c.api.download(output, outDir, { destName: `${name}-${output.filename}` });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = performance.now() - started;
  await c.close();
  return elapsed;
}

async function hotFolderRun(
  profile: ServerProfile,
  work: string,
  images: Buffer[],
): Promise<{ ms: number; peakRss: number; peakHeap: number; baseRss: number; journalMs: number }> {
  const c = await connect(profile);
  const store = await Store.open(join(work, 'hot.sqlite'));
  const hot = new HotFolderService({ store, api: c.api, clientId: c.events.clientId, follower: trackerFollower(c.tracker) });
  await hot.start();
  const inDir = join(work, 'hot-in');
  mkdirSync(inDir, { recursive: true });
  const config = await hot.add({
    inputDir: inDir,
    outputDir: join(work, 'hot-out'),
    workflow: WORKFLOW,
    bind: '1.image',
    concurrency: CONCURRENCY,
    settleMs: SETTLE_MS,
    rescanMs: 0,
  });
  await hot.whenIdle(config.id);
  // Written beside the folder first, then moved in at once, as a user drops a selection of files.
  const staging = join(work, 'hot-staging');
  mkdirSync(staging, { recursive: true });
  const names = images.map((bytes, i) => {
    const name = `drop-${String(i).padStart(5, '0')}.png`;
    writeFileSync(join(staging, name), bytes);
    return name;
  });
  const rss = new PeakRss();
  const started = performance.now();
  let done = 0;
  const finished = new Promise<void>((resolve) => {
    hot.on((event) => {
      if (event.type === 'folder' && event.status.counters.done + event.status.counters.failed !== done) {
        done = event.status.counters.done + event.status.counters.failed;
        if (done >= images.length) resolve();
      }
    });
  });
  for (const name of names) renameSync(join(staging, name), join(inDir, name));
  await finished;
  const ms = performance.now() - started;
  const peakRss = rss.stop();
  const failed = hot.counters(config.id).failed;
  if (failed > 0) throw new Error(`${failed} files failed in the hot folder run`);
  const journalStarted = performance.now();
  await hot.dispose();
  const journalMs = performance.now() - journalStarted;
  await store.close();
  await c.close();
  return { ms, peakRss, peakHeap: rss.peakHeap, baseRss: rss.base, journalMs };
}

async function discovery(profile: ServerProfile, work: string, count: number) {
  const inDir = join(work, 'existing');
  mkdirSync(inDir, { recursive: true });
  writeImagesInChild(inDir, count);
  const c = await connect(profile);
  const storePath = join(work, 'discovery.sqlite');
  const measure = async (label: string, id: string | undefined) => {
    const store = await Store.open(storePath);
    const hot = new HotFolderService({ store, api: c.api, clientId: c.events.clientId, follower: trackerFollower(c.tracker) });
    const rss = new PeakRss();
    const started = performance.now();
    let listedAt = 0;
    let seen = 0;
    const off = hot.on((event) => {
      if (event.type === 'file' && listedAt === 0) {
        seen += 1;
        if (seen >= count) listedAt = performance.now();
      }
    });
    // Paused, so nothing is sent: this measures finding and keying the files only. The restart
    // brings the saved folder back (still paused) from the store.
    await hot.start();
    const config = id
      ? hot.list()[0]!.config
      : await hot.add(
          { inputDir: inDir, outputDir: join(work, 'existing-out'), workflow: WORKFLOW, bind: '1.image', settleMs: SETTLE_MS, rescanMs: 0 },
          { persist: true, paused: true },
        );
    await hot.whenIdle(config.id);
    const readyAt = performance.now();
    off();
    const counters = hot.counters(config.id);
    const peak = rss.stop();
    await hot.dispose();
    await store.close();
    if (counters.waiting !== count) throw new Error(`${label}: ${counters.waiting} of ${count} files queued`);
    return {
      label,
      id: config.id,
      listedMs: (listedAt || readyAt) - started,
      readyMs: readyAt - started,
      peakRss: peak,
      peakHeap: rss.peakHeap,
      baseRss: rss.base,
    };
  };
  const first = await measure('first start', undefined);
  const again = await measure('restart', first.id);
  await c.close();
  return [first, again];
}

/** A fresh demo service per measurement: its folders (and its per-save directory listing) start empty each time. */
async function withDemo<T>(fn: (profile: ServerProfile) => Promise<T>): Promise<T> {
  const demo = await startDemoChild('local');
  try {
    return await fn({ kind: 'local', baseUrl: demo.url });
  } finally {
    await demo.stop();
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'flowdeck-bench-hot-'));
  const summary: Record<string, unknown> = {};
  try {
    console.log(`hot folders: ${FILES} files dropped at once, concurrency ${CONCURRENCY}, settle ${SETTLE_MS} ms; discovery of ${EXISTING} existing files`);
    if (FILES > 0) {
      const floorDir = join(work, 'floor-in');
      mkdirSync(floorDir, { recursive: true });
      const floorNames: string[] = [];
      for (let i = 0; i < FILES; i += 1) {
        const name = `floor-${i}.png`;
        writeFileSync(join(floorDir, name), png(i));
        floorNames.push(name);
      }
      const floorMs = await withDemo((profile) => floor(profile, floorDir, floorNames, join(work, 'floor-out')));
      console.log(`  floor (same jobs sent directly):       ${secs(floorMs)}  (${(FILES / (floorMs / 1000)).toFixed(0)} jobs/s)`);
      const hotImages = Array.from({ length: FILES }, (_, i) => png(500_000 + i));
      const hot = await withDemo((profile) => hotFolderRun(profile, work, hotImages));
      console.log(`  hot folder, drop to all done:          ${secs(hot.ms)}  (${(FILES / (hot.ms / 1000)).toFixed(0)} jobs/s)`);
      console.log(`  ratio hot folder / floor:              ${(hot.ms / floorMs).toFixed(2)}x  (the settle interval alone is ${SETTLE_MS} ms of it)`);
      console.log(`  peak RSS during the hot folder run:    ${mb(hot.peakRss)} (from ${mb(hot.baseRss)} before; peak heap ${mb(hot.peakHeap)})`);
      Object.assign(summary, {
        files: FILES,
        floorMs: Math.round(floorMs),
        hotFolderMs: Math.round(hot.ms),
        ratio: Number((hot.ms / floorMs).toFixed(3)),
        peakRssMb: Math.round(hot.peakRss / 1048576),
      });
    }
    if (EXISTING > 0) {
      const [first, again] = await withDemo((profile) => discovery(profile, work, EXISTING));
      for (const d of [first!, again!]) {
        console.log(
          `  discovery of ${EXISTING} files, ${d.label.padEnd(11)}: all listed ${secs(d.listedMs)}, all keyed and queued ${secs(d.readyMs)}, peak RSS ${mb(d.peakRss)} (from ${mb(d.baseRss)} before), peak heap ${mb(d.peakHeap)}`,
        );
      }
      summary.discovery = {
        files: EXISTING,
        firstListedMs: Math.round(first!.listedMs),
        firstReadyMs: Math.round(first!.readyMs),
        restartReadyMs: Math.round(again!.readyMs),
        peakRssMb: Math.round(first!.peakRss / 1048576),
      };
    }
    console.log(JSON.stringify(summary));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();

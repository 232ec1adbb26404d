// The live-preview pipeline, end to end: 512x512 JPEG previews "arrive from the socket" at 30 and
// at 120 frames/s and go through the real app core (job tracker, latest-wins preview gate), the
// browser harness's WebSocket transport and bridge, into the real renderer in Chromium, which
// decodes and draws them on the job card's preview canvas. Printed per rate: frames offered, delivered to
// the page and painted per second, and the p95 delay from "received in main" to "painted"; then
// the page's memory after 10,000 frames (bitmaps closed, nothing retained).
//
//   npm run build && npx tsx bench/preview-pipeline.ts [--frames-120 10000] [--frames-30 300]
//
// The server side is a stand-in (bench/preview-fake-server.ts) so that frames arrive at an exact
// rate; everything from the tracker on is the production code.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from '@playwright/test';
import { launchBenchBrowser, newBenchPage } from './support/browser';
import { startHarnessServer } from '../e2e/harness/server';
import { createAppCore, type AppCore } from '@main/app/core';
import { JsonSettingsStore } from '@main/config/json-settings';
import { SessionSecretStore } from '@main/config/secrets';
import { FakePreviewServer, frameNumber, makeJpegs, tagFrame } from './preview-fake-server';

const ROOT = resolve(import.meta.dirname, '..');
const RENDERER = join(ROOT, 'out/renderer');

interface PaintRecord {
  promptId: string;
  seq: number;
  paintedAt: number;
}
interface PageStats {
  received: number;
  painted: number;
  unpainted: number;
  /** Open preview bitmaps (object URLs in builds before the canvas preview). */
  liveBitmaps?: number;
  liveObjectUrls?: number;
  paints: PaintRecord[];
}

interface RateResult {
  fps: number;
  offered: number;
  seconds: number;
  delivered: number;
  painted: number;
  p50: number;
  p95: number;
  max: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

function readStats(page: Page): Promise<PageStats> {
  return page.evaluate(() => {
    const stats = (window as unknown as { __flowdeckPreviewStats: PageStats }).__flowdeckPreviewStats;
    return { ...stats, paints: stats.paints.slice() };
  });
}

/** Offers `count` frames at `fps` for one job and measures what the page painted. */
async function runRate(core: AppCore, server: FakePreviewServer, page: Page, pictures: Uint8Array[], fps: number, count: number): Promise<RateResult> {
  const submitted = server.nextSubmit();
  const answer = await core.invoke('run.submit', {
    workflowJson: JSON.stringify({ 1: { class_type: 'BenchSampler', inputs: { frames: count } } }),
    label: `bench ${fps} fps`,
  });
  if (!answer.ok) throw new Error(`submit failed: ${answer.error.message}`);
  const promptId = await submitted;

  // seq (assigned by main's preview gate when it sends a frame) -> offered frame number.
  const frameOfSeq = new Map<number, number>();
  const off = core.onEvent((event) => {
    if (event.name !== 'job.preview' || event.payload.promptId !== promptId) return;
    const n = frameNumber(event.payload.bytes);
    if (n !== null) frameOfSeq.set(event.payload.seq, n);
  });

  server.start(promptId);
  // The card mounts its live preview once the job shows as running.
  await page.waitForSelector(`article[data-prompt-id="${promptId}"][data-phase="running"]`, { timeout: 15_000 });

  const receivedAt = new Float64Array(count);
  const interval = 1000 / fps;
  const start = epochNow();
  for (let n = 0; n < count; n += 1) {
    const due = start + n * interval;
    const wait = due - epochNow();
    if (wait > 1) await sleep(wait);
    const bytes = tagFrame(pictures[n % pictures.length]!, n);
    receivedAt[n] = epochNow();
    server.preview(promptId, bytes);
  }
  const seconds = (epochNow() - start) / 1000;
  // Let the last frame through before the job ends.
  await sleep(500);
  server.finish(promptId);
  await page.waitForSelector(`article[data-prompt-id="${promptId}"][data-phase="succeeded"]`, { timeout: 15_000 });
  off();

  const stats = await readStats(page);
  const paints = stats.paints.filter((p) => p.promptId === promptId);
  const delays = paints
    .map((p) => {
      const n = frameOfSeq.get(p.seq);
      return n === undefined ? null : p.paintedAt - receivedAt[n]!;
    })
    .filter((d): d is number => d !== null)
    .sort((a, b) => a - b);
  return {
    fps,
    offered: count,
    seconds,
    delivered: frameOfSeq.size,
    painted: paints.length,
    p50: percentile(delays, 50),
    p95: percentile(delays, 95),
    max: delays.at(-1) ?? NaN,
  };
}

async function pageMemory(page: Page): Promise<{ heapMiB: number; nodes: number; liveFrames: number }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const metric = (name: string): number => metrics.find((m) => m.name === name)?.value ?? NaN;
  const stats = await readStats(page);
  await cdp.detach();
  return { heapMiB: metric('JSHeapUsedSize') / 2 ** 20, nodes: metric('Nodes'), liveFrames: stats.liveBitmaps ?? stats.liveObjectUrls ?? 0 };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'frames-120': { type: 'string', default: '10000' }, 'frames-30': { type: 'string', default: '300' } } });
  const frames120 = Number(values['frames-120']);
  const frames30 = Number(values['frames-30']);
  if (!existsSync(join(RENDERER, 'index.html'))) throw new Error(`${RENDERER} is missing: run \`npm run build\` first.`);

  const dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-bench-previews-'));
  const server = new FakePreviewServer('http://127.0.0.1:9');
  const core = createAppCore({
    settings: new JsonSettingsStore(dataDir),
    secrets: new SessionSecretStore(),
    dataDir,
    // The first start creates the demo profile; here it connects to the stand-in server.
    startDemo: async () => ({ url: server.profile.baseUrl, stop: async () => undefined }),
    connect: () => ({ api: server.api, events: server.events }),
    allowAnyPath: true,
  });
  await core.start();
  const harness = await startHarnessServer({ core, rendererDir: RENDERER, port: 0 });
  const browser = await launchBenchBrowser(['--enable-precise-memory-info']);
  try {
    const page = await newBenchPage(browser);
    await page.goto(harness.url);
    await page.waitForFunction(() => typeof (window as unknown as { __flowdeckPreviewStats?: unknown }).__flowdeckPreviewStats === 'object');
    await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'connected' }).waitFor({ timeout: 20_000 });

    const pictures = makeJpegs(8);
    console.log(`preview pipeline: 512x512 JPEG frames of ${Math.round(pictures[0]!.length / 1024)} KiB, main -> harness WebSocket -> renderer canvas`);
    const before = await pageMemory(page);
    const results = [await runRate(core, server, page, pictures, 30, frames30), await runRate(core, server, page, pictures, 120, frames120)];
    const after = await pageMemory(page);

    for (const r of results) {
      console.log(
        `  ${String(r.fps).padStart(3)} fps offered (${r.offered} frames, ${r.seconds.toFixed(1)} s): ` +
          `delivered ${(r.delivered / r.seconds).toFixed(1)}/s, painted ${(r.painted / r.seconds).toFixed(1)}/s, ` +
          `received-in-main -> painted p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms, max ${r.max.toFixed(1)} ms`,
      );
    }
    const total = results.reduce((sum, r) => sum + r.offered, 0);
    console.log(
      `  page memory after ${total} frames (after GC): JS heap ${after.heapMiB.toFixed(1)} MiB (before ${before.heapMiB.toFixed(1)} MiB), ` +
        `DOM nodes ${after.nodes} (before ${before.nodes}), open preview frames ${after.liveFrames}`,
    );
  } finally {
    await browser.close();
    await harness.close();
    await core.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});

// A long day in one session: N jobs with previews and progress, one after another, through the
// real core (its own process) and the real renderer in Chromium, the Run view on screen. After job
// 100 and after job N it prints the core's RSS and heap (after a GC), the page's JS heap, DOM nodes
// and event listeners (after a GC, from the DevTools Performance metrics), the page's live
// intervals and open preview frames (bitmaps) and the core's live handles, and the ratio of the two readings.
//
//   npx electron-vite build && npx tsx bench/long-day.ts [--jobs 1000] [--at 100]
//
// Target (issue 25): RSS and JS heap after job N within 10% of their values after job 100; no
// listener, preview frame, object URL or timer growing with the number of jobs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from '@playwright/test';
import { launchBenchBrowser } from './support/browser';
import { counters, openInstrumentedPage, startCore, type CoreChild } from './support/app-under-test';
import { loadAverage, rssOf } from './support/proc-cpu';

interface Reading {
  job: number;
  coreRssMiB: number;
  coreHeapMiB: number;
  coreHandles: Record<string, number>;
  pageHeapMiB: number;
  domNodes: number;
  listeners: number;
  liveIntervals: number;
  liveFrames: number;
}

/** Submits one pacer job from the page and resolves once the page has seen it end. */
function runJob(page: Page, workflowJson: string): Promise<string> {
  return page.evaluate(async (json) => {
    type Api = {
      invoke(name: string, input: unknown): Promise<{ ok: boolean; value?: { promptIds?: string[] }; error?: { message: string } }>;
      on(name: string, listener: (payload: { promptId: string; phase: string }) => void): () => void;
    };
    const api = (window as unknown as { flowdeck: Api }).flowdeck;
    let wanted: string | null = null;
    const ended = new Map<string, string>();
    let resolveEnd: (phase: string) => void = () => undefined;
    const done = new Promise<string>((resolve) => (resolveEnd = resolve));
    const off = api.on('job.update', (job) => {
      if (!['succeeded', 'failed', 'cancelled'].includes(job.phase)) return;
      ended.set(job.promptId, job.phase);
      if (job.promptId === wanted) resolveEnd(job.phase);
    });
    const answer = await api.invoke('run.submit', { workflowJson: json, label: 'long day' });
    if (!answer.ok) {
      off();
      throw new Error(answer.error?.message ?? 'submit failed');
    }
    wanted = answer.value?.promptIds?.[0] ?? null;
    // A short job may end before the submit's answer arrives.
    if (wanted !== null && ended.has(wanted)) resolveEnd(ended.get(wanted)!);
    const phase = await done;
    off();
    return phase;
  }, workflowJson);
}

async function read(page: Page, core: CoreChild, job: number): Promise<Reading> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  await cdp.detach();
  const metric = (name: string): number => metrics.find((m) => m.name === name)?.value ?? NaN;
  const c = await counters(page);
  const stats = await core.stats();
  return {
    job,
    coreRssMiB: rssOf(core.pid) / 2 ** 20,
    coreHeapMiB: stats.heapUsed / 2 ** 20,
    coreHandles: stats.handles,
    pageHeapMiB: metric('JSHeapUsedSize') / 2 ** 20,
    domNodes: metric('Nodes'),
    listeners: metric('JSEventListeners'),
    liveIntervals: c.liveIntervals,
    liveFrames: c.liveFrames,
  };
}

function show(r: Reading): string {
  return (
    `after job ${String(r.job).padStart(5)}: core RSS ${r.coreRssMiB.toFixed(1)} MiB, heap ${r.coreHeapMiB.toFixed(1)} MiB, handles ${JSON.stringify(r.coreHandles)}; ` +
    `page JS heap ${r.pageHeapMiB.toFixed(2)} MiB, DOM nodes ${r.domNodes}, listeners ${r.listeners}, live intervals ${r.liveIntervals}, open preview frames ${r.liveFrames}`
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { jobs: { type: 'string', default: '1000' }, at: { type: 'string', default: '100' } } });
  const jobs = Number(values.jobs);
  const at = Number(values.at);
  // Each job: 0.2 s sending 10 previews/s and 20 progress/s (2 previews, 4 progress events).
  const workflowJson = JSON.stringify({ 1: { class_type: 'BenchPacer', inputs: { seconds: 0.2, previews_per_s: 10, progress_per_s: 20 } } });
  const dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-bench-long-day-'));
  const core = await startCore(dataDir);
  const browser = await launchBenchBrowser();
  try {
    const page = await openInstrumentedPage(browser, core);
    console.log(`long day: ${jobs} jobs (0.2 s each, 2 previews + 4 progress events), one session; load ${loadAverage()}`);
    const readings: Reading[] = [];
    const started = performance.now();
    for (let n = 1; n <= jobs; n += 1) {
      const phase = await runJob(page, workflowJson);
      if (phase !== 'succeeded') throw new Error(`job ${n} ended ${phase}`);
      if (n === 1 || n === at || n === jobs || n % 250 === 0) {
        const reading = await read(page, core, n);
        readings.push(reading);
        console.log(`  ${show(reading)} (${((performance.now() - started) / 1000).toFixed(0)} s, load ${loadAverage()})`);
      }
    }
    const base = readings.find((r) => r.job === at);
    const last = readings.at(-1);
    if (base && last && last !== base) {
      const ratio = (a: number, b: number): string => `${(a / b).toFixed(3)}x`;
      console.log(
        `  job ${jobs} vs job ${at}: core RSS ${ratio(last.coreRssMiB, base.coreRssMiB)}, page JS heap ${ratio(last.pageHeapMiB, base.pageHeapMiB)} (target <= 1.10x each); ` +
          `listeners ${base.listeners} -> ${last.listeners}, DOM nodes ${base.domNodes} -> ${last.domNodes}, live intervals ${base.liveIntervals} -> ${last.liveIntervals}, open preview frames ${base.liveFrames} -> ${last.liveFrames}`,
      );
    }
  } finally {
    await browser.close();
    await core.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});

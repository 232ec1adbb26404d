// The app's own cost while it works and while it idles, read from the operating system: the app
// core (with the browser harness's server, in its own process: core-child.ts) and the Chromium
// processes showing the real renderer, each as % of one core (/proc/PID/stat), while the pacer demo
// (its own process, not counted) runs a job that sends previews and progress at a fixed rate with
// the Run view and the job's live preview on screen. Per scenario it prints what crossed from the
// core to the page (messages and bytes per event kind, counted in the page at its WebSocket) and
// how many frames were painted. Then the idle cost: connected, window open, nothing running, and
// the timers that wake while idle (core: live handles; page: setInterval/setTimeout/rAF wake-ups).
//
//   npx electron-vite build && npx tsx bench/app-cost.ts [--seconds 60] [--idle-seconds 30]
//     [--rates 2:2,10:20,30:30]     previews/s:progress/s per scenario
//
// Targets (issue 25): 2 previews + 2 progress/s <= 2% of one core (core + page); 10 + 20/s <= 5%;
// 30/s no backlog; idle <= 0.2% and no timer waking more than once a second.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from '@playwright/test';
import { launchBenchBrowser } from './support/browser';
import { chromiumKind, CpuWindow, descendantsOf, loadAverage } from './support/proc-cpu';
import { counters, openInstrumentedPage, startCore, type CoreChild, type WireTally } from './support/app-under-test';

const ROOT = resolve(import.meta.dirname, '..');
/** With FLOWDECK_BENCH_CPU_PROF=DIR: the core under --cpu-prof, and the page's profile per job, in DIR. */
const PROFILE_DIR = process.env.FLOWDECK_BENCH_CPU_PROF;
/** With FLOWDECK_BENCH_TRACE=DIR: a Chromium trace of each job in DIR (bench/support/trace-top.ts reads it). */
const TRACE_DIR = process.env.FLOWDECK_BENCH_TRACE;

function diffWire(after: Record<string, WireTally>, before: Record<string, WireTally>): Record<string, WireTally> {
  const out: Record<string, WireTally> = {};
  for (const [name, t] of Object.entries(after)) {
    const b = before[name] ?? { messages: 0, bytes: 0 };
    if (t.messages > b.messages) out[name] = { messages: t.messages - b.messages, bytes: t.bytes - b.bytes };
  }
  return out;
}

function diffCounts(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) if (v > (before[k] ?? 0)) out[k] = v - (before[k] ?? 0);
  return out;
}

function chromiumPids(): { pid: number; comm: string }[] {
  return descendantsOf(process.pid).filter((p) => /chrom/i.test(p.comm));
}

/** The page side's CPU split by Chromium process kind, as % of one core. */
function byKind(window: CpuWindow, wallSeconds: number): string {
  const kinds = new Map<string, number>();
  for (const [pid, cpu] of window.perProcess()) {
    const kind = chromiumKind(pid);
    kinds.set(kind, (kinds.get(kind) ?? 0) + cpu);
  }
  return [...kinds]
    .filter(([, cpu]) => cpu > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, cpu]) => `${kind} ${pct((100 * cpu) / wallSeconds)}`)
    .join(', ');
}

function pct(n: number): string {
  return `${n.toFixed(2)}%`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '60' },
      'idle-seconds': { type: 'string', default: '30' },
      rates: { type: 'string', default: '2:2,10:20,30:30' },
    },
  });
  const seconds = Number(values.seconds);
  const idleSeconds = Number(values['idle-seconds']);
  const rates = values.rates!.split(',').map((r) => r.split(':').map(Number) as [number, number]);
  if (!existsSync(join(ROOT, 'out/renderer/index.html'))) throw new Error('out/renderer is missing: run `npx electron-vite build` first.');

  const dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-bench-cost-'));
  const core = await startCore(dataDir, PROFILE_DIR);
  const browser = await launchBenchBrowser();
  try {
    const page = await openInstrumentedPage(browser, core);
    const chromium = chromiumPids();
    console.log(
      `app cost: core pid ${core.pid}, ${chromium.length} Chromium processes (${[...new Set(chromium.map((p) => p.comm))].join(', ')}), demo pid ${core.demoPid} not counted; load ${loadAverage()}`,
    );

    // Idle first, with nothing having run yet, then the generating scenarios.
    await sleep(3000);
    const idle = await measureIdle(
      page,
      core,
      chromium.map((p) => p.pid),
      idleSeconds,
    );

    for (const [previewsPerS, progressPerS] of rates) {
      await measureJob(
        browser,
        page,
        core,
        chromium.map((p) => p.pid),
        seconds,
        previewsPerS,
        progressPerS,
      );
    }
    // Idle again after the jobs: what they left running.
    await sleep(3000);
    await measureIdle(
      page,
      core,
      chromium.map((p) => p.pid),
      idleSeconds,
      idle,
    );
  } finally {
    await browser.close();
    await core.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measureIdle(page: Page, core: CoreChild, chromium: number[], seconds: number, before?: unknown): Promise<true> {
  const c0 = await counters(page);
  const coreWindow = new CpuWindow([core.pid]);
  const pageWindow = new CpuWindow(chromium);
  const load0 = loadAverage();
  await sleep(seconds * 1000);
  const coreCpu = coreWindow.read();
  const pageCpu = pageWindow.read();
  const kinds = byKind(pageWindow, pageCpu.wallSeconds);
  const c1 = await counters(page);
  const stats = await core.stats();
  const label = before === undefined ? 'idle (connected, Run view, nothing run yet)' : 'idle again (after the jobs)';
  console.log(
    `  ${label}, ${coreCpu.wallSeconds.toFixed(1)} s, load ${load0}-${loadAverage()}: core ${pct(coreCpu.percentOfCore)}, page ${pct(pageCpu.percentOfCore)}, together ${pct(coreCpu.percentOfCore + pageCpu.percentOfCore)} of one core (target <= 0.2%)`,
  );
  const wakes = Object.entries(diffCounts(c1.wakeups, c0.wakeups)).sort((a, b) => b[1] - a[1]);
  console.log(`    page by process: ${kinds || 'nothing'}`);
  console.log(
    `    page wake-ups in the window: ${wakes.length === 0 ? 'none' : wakes.map(([k, n]) => `${(n / coreCpu.wallSeconds).toFixed(2)}/s ${k}`).join('; ')}`,
  );
  const wire = diffWire(c1.wire, c0.wire);
  console.log(
    `    core -> page in the window: ${
      Object.keys(wire).length === 0
        ? 'nothing'
        : Object.entries(wire)
            .map(([k, t]) => `${k} ${t.messages} msgs ${t.bytes} B`)
            .join('; ')
    }`,
  );
  console.log(
    `    core's live handles: ${JSON.stringify(stats.handles)}; RSS ${(stats.rss / 2 ** 20).toFixed(1)} MiB, heap ${(stats.heapUsed / 2 ** 20).toFixed(1)} MiB`,
  );
  return true;
}

async function measureJob(
  browser: Browser,
  page: Page,
  core: CoreChild,
  chromium: number[],
  seconds: number,
  previewsPerS: number,
  progressPerS: number,
): Promise<void> {
  const workflow = { 1: { class_type: 'BenchPacer', inputs: { seconds, previews_per_s: previewsPerS, progress_per_s: progressPerS } } };
  const submitted = await page.evaluate(async (json) => {
    const api = (
      window as unknown as {
        flowdeck: {
          invoke(name: string, input: unknown): Promise<{ ok: boolean; value?: { promptIds?: string[]; promptId?: string }; error?: { message: string } }>;
        };
      }
    ).flowdeck;
    return api.invoke('run.submit', { workflowJson: json, label: 'bench pacer' });
  }, JSON.stringify(workflow));
  if (!submitted.ok) throw new Error(`submit failed: ${JSON.stringify(submitted.error)}`);
  const promptId = submitted.value?.promptIds?.[0] ?? submitted.value?.promptId;
  if (!promptId) throw new Error(`submit answered no prompt id: ${JSON.stringify(submitted.value)}`);
  await page.waitForSelector(`article[data-prompt-id="${promptId}"][data-phase="running"]`, { timeout: 30_000 });
  const c0 = await counters(page);
  const s0 = await core.stats();
  const load0 = loadAverage();
  const cdp = PROFILE_DIR ? await page.context().newCDPSession(page) : null;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.start');
  }
  if (TRACE_DIR)
    await browser.startTracing(page, {
      path: join(TRACE_DIR, `trace-${previewsPerS}-${progressPerS}.json`),
      categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'cc', 'viz', 'gpu', 'v8', 'toplevel', 'loading', 'benchmark'],
    });
  const coreWindow = new CpuWindow([core.pid]);
  const pageWindow = new CpuWindow(chromium);
  await page.waitForSelector(`article[data-prompt-id="${promptId}"][data-phase="succeeded"]`, { timeout: (seconds + 60) * 1000 });
  if (TRACE_DIR) await browser.stopTracing();
  if (cdp && PROFILE_DIR) {
    const { profile } = await cdp.send('Profiler.stop');
    writeFileSync(join(PROFILE_DIR, `page-${previewsPerS}-${progressPerS}.cpuprofile`), JSON.stringify(profile));
    await cdp.detach();
  }
  const coreCpu = coreWindow.read();
  const pageCpu = pageWindow.read();
  const kinds = byKind(pageWindow, pageCpu.wallSeconds);
  const c1 = await counters(page);
  const s1 = await core.stats();
  const wall = coreCpu.wallSeconds;
  const target = previewsPerS <= 2 ? ' (target <= 2%)' : previewsPerS <= 10 ? ' (target <= 5%)' : ' (no backlog; cost said)';
  console.log(
    `  ${previewsPerS} previews/s + ${progressPerS} progress/s, ${wall.toFixed(1)} s running, load ${load0}-${loadAverage()}: ` +
      `core ${pct(coreCpu.percentOfCore)}, page ${pct(pageCpu.percentOfCore)}, together ${pct(coreCpu.percentOfCore + pageCpu.percentOfCore)} of one core${target}`,
  );
  console.log(`    page by process: ${kinds}`);
  const painted = c1.painted - c0.painted;
  const received = c1.received - c0.received;
  console.log(
    `    previews: offered ${Math.round(previewsPerS * wall)}, reached the page ${received} (${(received / wall).toFixed(1)}/s), painted ${painted} (${(painted / wall).toFixed(1)}/s), unpainted ${c1.unpainted - c0.unpainted}, preview frames left open after ${c1.liveFrames}`,
  );
  const wire = diffWire(c1.wire, c0.wire);
  const events = Object.fromEntries(Object.entries(s1.events).map(([k, v]) => [k, v.count - (s0.events[k]?.count ?? 0)]));
  const total = Object.values(wire).reduce((sum, t) => ({ messages: sum.messages + t.messages, bytes: sum.bytes + t.bytes }), { messages: 0, bytes: 0 });
  console.log(
    `    core -> page: ${total.messages} messages, ${(total.bytes / 1024).toFixed(0)} KiB (${(total.messages / wall).toFixed(1)} msgs/s); ` +
      Object.entries(wire)
        .sort((a, b) => b[1].bytes - a[1].bytes)
        .map(([k, t]) => `${k} ${t.messages} x ${Math.round(t.bytes / t.messages)} B`)
        .join('; '),
  );
  const sent = diffWire(c1.sent, c0.sent);
  const sentTotal = Object.values(sent).reduce((sum, t) => sum + t.messages, 0);
  console.log(
    `    page -> core: ${sentTotal} messages (${(sentTotal / wall).toFixed(1)} msgs/s); ` +
      Object.entries(sent)
        .sort((a, b) => b[1].messages - a[1].messages)
        .map(([k, t]) => `${k} ${t.messages} x ${Math.round(t.bytes / t.messages)} B`)
        .join('; '),
  );
  console.log(`    core events emitted: ${JSON.stringify(events)}`);
  const wakes = Object.entries(diffCounts(c1.wakeups, c0.wakeups))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6);
  console.log(`    page wake-ups: ${wakes.map(([k, n]) => `${(n / wall).toFixed(1)}/s ${k}`).join('; ')}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});

// The library grid while scrolling a big library (10,000 items by default, 1,000,000 for issue 25),
// in the real renderer in Chromium over the built browser harness: a fresh data folder is seeded
// with finished image items (bench/support/seed-store.ts: through the real schema in SQLite, pointing
// at a few hundred small real PNGs in the library folder, so thumbnails are really made and served),
// the Library view is opened, and the grid is scrolled twice while every requestAnimationFrame
// interval is recorded:
//   - a fling: 11,000 px/s (a dozen screens a second) for 10 s, from the middle of the library;
//   - a scrollbar drag: top to bottom in 6 s (a new screenful every frame, whatever the size).
// Chromium runs without vsync or a frame-rate limit, so an interval is what one frame really costs.
// Prints p50/p95/max frame time per speed and the most tiles ever in the DOM (virtualization: a
// few dozen, not 10,000). Target: p95 under 16 ms.
//
//   npm run build && npx tsx bench/library-grid.ts [--items 1000000] [--fling 11000:10] [--drag 6]
//   BENCH_PROFILE=1 ... also prints where the main thread's time went (Chromium trace events).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { launchBenchBrowser, newBenchPage } from './support/browser';
import { startHarness } from '../e2e/fixtures/harness';
import { loadAverage } from './support/proc-cpu';
import { itemFileName, seedDataDir } from './support/seed-store';

const { values } = parseArgs({
  options: {
    items: { type: 'string' },
    fling: { type: 'string' },
    drag: { type: 'string' },
    images: { type: 'string' },
    'seed-dir': { type: 'string' },
  },
});
const ITEMS = Number(values.items ?? 10_000);
/** The fling: this many px/s for this many seconds, from the middle of the library down. */
const [FLING_SPEED, FLING_SECONDS] = (values.fling ?? '11000:10').split(':').map(Number) as [number, number];
/** The scrollbar drag: from top to bottom in this many seconds. */
const DRAG_SECONDS = Number(values.drag ?? 6);
const DISTINCT_IMAGES = Number(values.images ?? 300);
const TARGET_P95_MS = 16;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  // --seed-dir DIR: the seeded data folder is kept there and reused by the next run (a million
  // items take a couple of minutes to seed); otherwise a temporary one, removed at the end.
  const keep = values['seed-dir'];
  const dataDir = keep ?? mkdtempSync(join(tmpdir(), 'flowdeck-bench-grid-'));
  try {
    const t0 = performance.now();
    const reuse =
      keep !== undefined &&
      existsSync(join(keep, 'seeded.json')) &&
      readFileSync(join(keep, 'seeded.json'), 'utf8') === JSON.stringify({ ITEMS, DISTINCT_IMAGES });
    if (!reuse) {
      if (keep) rmSync(keep, { recursive: true, force: true });
      mkdirSync(dataDir, { recursive: true });
      await seedDataDir(dataDir, { items: ITEMS, images: DISTINCT_IMAGES });
      if (keep) writeFileSync(join(keep, 'seeded.json'), JSON.stringify({ ITEMS, DISTINCT_IMAGES }));
    }
    console.log(
      `library grid benchmark: ${ITEMS.toLocaleString('en')} items (${DISTINCT_IMAGES} distinct 96x72 PNGs) ${reuse ? 'reused from' : 'seeded in'} ${reuse ? keep : `${((performance.now() - t0) / 1000).toFixed(1)} s`}; load ${loadAverage()}`,
    );
    const harness = await startHarness({ dataDir });
    // Frames are not held to the display's refresh (vsync off, no frame-rate limit): each
    // requestAnimationFrame interval is then the time one frame of scrolling really costs
    // (script, style, layout, paint), which is what the "< 16 ms" target is about. Capped at
    // 60 Hz, every interval would read 16.7 ms however little work a frame took.
    const browser = await launchBenchBrowser(['--disable-gpu-vsync', '--disable-frame-rate-limit']);
    try {
      const page = await newBenchPage(browser);
      await page.goto(harness.url);
      await page.getByRole('link', { name: 'Library' }).click();
      const grid = page.getByRole('grid', { name: 'Library outputs' });
      await page
        .getByRole('status')
        .filter({ hasText: `${ITEMS.toLocaleString('en')} outputs` })
        .waitFor({ timeout: 30_000 });
      await grid.getByRole('img', { name: itemFileName(0), exact: true }).waitFor();
      // Let the first screen's thumbnails arrive, so the run measures scrolling, not start-up.
      await page.waitForTimeout(1500);

      const cdp = process.env.BENCH_PROFILE ? await page.context().newCDPSession(page) : null;
      const traceEvents: { name: string; dur?: number; ph: string; tid: number }[] = [];
      if (cdp) {
        cdp.on('Tracing.dataCollected', (e) => {
          traceEvents.push(...(e.value as unknown as typeof traceEvents));
        });
        await cdp.send('Tracing.start', {
          categories: 'devtools.timeline,disabled-by-default-devtools.timeline,blink,cc,gpu,v8',
          transferMode: 'ReportEvents',
        });
      }
      type Scroll = { kind: 'fling'; speed: number; seconds: number } | { kind: 'drag'; seconds: number };
      const scrollOnce = (scroll: Scroll) =>
        grid.evaluate(async (element, scroll) => {
          // The project's Node type check has no DOM library: the few page objects used are described here.
          const scroller = element as unknown as {
            scrollTop: number;
            scrollHeight: number;
            clientHeight: number;
            querySelectorAll(s: string): { length: number };
          };
          const raf = (globalThis as unknown as { requestAnimationFrame(cb: (now: number) => void): number }).requestAnimationFrame;
          const deltas: number[] = [];
          let maxTiles = 0;
          const end = scroller.scrollHeight - scroller.clientHeight;
          const from = scroll.kind === 'fling' ? Math.round(end / 2) : 0;
          scroller.scrollTop = from;
          await new Promise((r) => setTimeout(r, 1000));
          await new Promise<void>((resolve) => {
            let start = 0;
            let last = 0;
            const frame = (now: number): void => {
              if (start === 0) start = now;
              else deltas.push(now - last);
              last = now;
              const elapsed = (now - start) / 1000;
              const progress = Math.min(1, elapsed / scroll.seconds);
              scroller.scrollTop = scroll.kind === 'fling' ? Math.min(end, from + scroll.speed * elapsed) : progress * end;
              maxTiles = Math.max(maxTiles, scroller.querySelectorAll('[role="gridcell"]').length);
              if (progress < 1) raf(frame);
              else resolve();
            };
            raf(frame);
          });
          return { deltas, maxTiles, scrollHeight: scroller.scrollHeight, reachedBottom: Math.abs(scroller.scrollTop - end) < 2 };
        }, scroll);
      const scrolls: Scroll[] = [
        { kind: 'fling', speed: FLING_SPEED, seconds: FLING_SECONDS },
        { kind: 'drag', seconds: DRAG_SECONDS },
      ];
      const results: { scroll: Scroll; run: Awaited<ReturnType<typeof scrollOnce>> }[] = [];
      for (const scroll of scrolls) results.push({ scroll, run: await scrollOnce(scroll) });
      if (cdp) {
        const finished = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
        await cdp.send('Tracing.end');
        await finished;
        const total = new Map<string, number>();
        for (const e of traceEvents) if (e.ph === 'X' && e.dur) total.set(`${e.name} [${e.tid}]`, (total.get(`${e.name} [${e.tid}]`) ?? 0) + e.dur);
        for (const [key, us] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${(us / 1000).toFixed(1).padStart(8)} ms  ${key}`);
      }
      // The last tile is in the DOM and named: the whole result was reachable.
      const lastReachable = await grid
        .getByRole('img', { name: itemFileName(ITEMS - 1), exact: true })
        .waitFor({ timeout: 10_000 })
        .then(
          () => true,
          () => false,
        );
      // Once the scrolling stops, the thumbnails of the tiles on screen load.
      await page.waitForTimeout(1000);
      // Only real thumbnails count (not the placeholder picture tiles show until they load).
      const loaded = await grid.evaluate(
        (el) =>
          [...(el.querySelectorAll('img') as unknown as { complete: boolean; naturalWidth: number; src: string }[])].filter(
            (img) => img.src.includes('/thumb/') && img.complete && img.naturalWidth > 0,
          ).length,
      );

      let maxTiles = 0;
      for (const { scroll, run } of results) {
        const sorted = [...run.deltas].sort((a, b) => a - b);
        const p95 = percentile(sorted, 95);
        maxTiles = Math.max(maxTiles, run.maxTiles);
        const what =
          scroll.kind === 'fling'
            ? `fling at ${scroll.speed.toLocaleString('en')} px/s for ${scroll.seconds} s from the middle`
            : `scrollbar drag, top to bottom in ${scroll.seconds} s (${Math.round(run.scrollHeight / scroll.seconds).toLocaleString('en')} px/s), reached bottom: ${run.reachedBottom}`;
        console.log(
          `${what}: ${run.deltas.length} frames; frame time p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms ` +
            `(target p95 < ${TARGET_P95_MS} ms: ${p95 < TARGET_P95_MS ? 'met' : 'NOT met'})`,
        );
      }
      console.log(
        `scroll height ${results[0]!.run.scrollHeight.toLocaleString('en')} px; the last item (${itemFileName(ITEMS - 1)}) in the DOM at the bottom: ${lastReachable ? 'yes' : 'NO'}; load ${loadAverage()}`,
      );
      console.log(`tiles in the DOM: at most ${maxTiles} of ${ITEMS.toLocaleString('en')}; thumbnails shown 1 s after stopping at the bottom: ${loaded}`);
    } finally {
      await browser.close();
      await harness.stop();
    }
  } finally {
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

// The floor under the live preview's cost: what this Chromium spends just SHOWING 512x512 JPEG
// frames at a fixed rate in a bare page (no app, no transport), read from /proc per Chromium
// process kind, side by side for three ways of showing them:
//   img-predecode  a blob URL decoded off screen first, then set on the <img> (what the app does);
//   img-only       the blob URL set on the <img> directly;
//   bitmap-canvas  createImageBitmap(blob) transferred to a 'bitmaprenderer' canvas (no URL);
//   bitmap-2d      createImageBitmap(blob) drawn on a '2d' canvas, then closed;
//   none           the page idle, for reference.
// bench/app-cost.ts's figures while generating cannot go below the row that matches the app.
//
//   npx tsx bench/preview-display.ts [--fps 10] [--seconds 10] [--rounds 2]
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { launchBenchBrowser, newBenchPage } from './support/browser';
import { makeJpegs } from './preview-fake-server';
import { chromiumKind, CpuWindow, descendantsOf, loadAverage } from './support/proc-cpu';

type Mode = 'img-predecode' | 'img-only' | 'bitmap-canvas' | 'bitmap-2d' | 'none';

// Page code as text: the benchmarks are type-checked without the DOM library.
const SHOW_FRAMES = `function (mode, interval) {
  clearInterval(window.timer);
  const host = document.getElementById('host');
  host.replaceChildren();
  if (mode === 'none') return;
  const img = document.createElement('img');
  img.style.maxWidth = '100%';
  const canvas = document.createElement('canvas');
  canvas.width = 512;
  canvas.height = 512;
  canvas.style.maxWidth = '100%';
  const context = mode === 'bitmap-canvas' ? canvas.getContext('bitmaprenderer') : null;
  const context2d = mode === 'bitmap-2d' ? canvas.getContext('2d') : null;
  host.append(mode === 'bitmap-canvas' || mode === 'bitmap-2d' ? canvas : img);
  let n = 0;
  let previous = null;
  window.timer = setInterval(async () => {
    const blob = new Blob([window.pictures[n++ % window.pictures.length]], { type: 'image/jpeg' });
    if (mode === 'bitmap-canvas') {
      context.transferFromImageBitmap(await createImageBitmap(blob));
      return;
    }
    if (mode === 'bitmap-2d') {
      const bitmap = await createImageBitmap(blob);
      context2d.drawImage(bitmap, 0, 0);
      bitmap.close();
      return;
    }
    const url = URL.createObjectURL(blob);
    if (mode === 'img-predecode') {
      const probe = new Image();
      probe.src = url;
      await probe.decode();
    }
    img.onload = () => {
      if (previous) URL.revokeObjectURL(previous);
      previous = url;
    };
    img.src = url;
  }, interval);
}`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { fps: { type: 'string', default: '10' }, seconds: { type: 'string', default: '10' }, rounds: { type: 'string', default: '2' } },
  });
  const fps = Number(values.fps);
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const pictures = makeJpegs(4).map((j) => Buffer.from(j).toString('base64'));
  const browser = await launchBenchBrowser();
  try {
    const page = await newBenchPage(browser);
    await page.setContent('<div id="host" style="width: 400px"></div>');
    await page.evaluate(`window.pictures = ${JSON.stringify(pictures)}.map((b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)))`);
    const pids = descendantsOf(process.pid)
      .filter((p) => /chrom/i.test(p.comm))
      .map((p) => p.pid);
    console.log(
      `preview display floor: 512x512 JPEG (${Math.round((pictures[0]!.length * 3) / 4 / 1024)} KiB) at ${fps} frames/s, ${seconds} s per row, bare page; load ${loadAverage()}`,
    );
    const modes: Mode[] = ['img-predecode', 'img-only', 'bitmap-canvas', 'bitmap-2d', 'none'];
    for (let round = 1; round <= rounds; round += 1) {
      for (const mode of modes) {
        await page.evaluate(`(${SHOW_FRAMES})(${JSON.stringify(mode)}, ${1000 / fps})`);
        await sleep(1500);
        const window = new CpuWindow(pids);
        await sleep(seconds * 1000);
        const total = window.read();
        const kinds = new Map<string, number>();
        for (const [pid, cpu] of window.perProcess()) kinds.set(chromiumKind(pid), (kinds.get(chromiumKind(pid)) ?? 0) + cpu);
        const split = [...kinds]
          .filter(([, cpu]) => cpu > 0)
          .sort((a, b) => b[1] - a[1])
          .map(([kind, cpu]) => `${kind} ${((100 * cpu) / total.wallSeconds).toFixed(2)}%`);
        console.log(
          `  round ${round} ${mode.padEnd(13)} ${total.percentOfCore.toFixed(2).padStart(6)}% of one core (${split.join(', ') || 'nothing'}); load ${loadAverage()}`,
        );
      }
    }
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});

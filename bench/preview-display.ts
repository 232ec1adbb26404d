// The floor under the live preview's cost: what this Chromium spends just SHOWING 512x512 JPEG
// frames at a fixed rate in a bare page (no app, no transport), read from /proc per Chromium
// process kind, side by side for three ways of showing them:
//   img-predecode  a blob URL decoded off screen first, then set on the <img> (what the app does);
//   img-only       the blob URL set on the <img> directly;
//   bitmap-canvas  createImageBitmap(blob) transferred to a 'bitmaprenderer' canvas (no URL);
//   bitmap-2d      createImageBitmap(blob) drawn on a '2d' canvas, then closed;
//   decoder-2d     WebCodecs' ImageDecoder on the bytes (no Blob: nothing registered with the
//                  browser process), its VideoFrame drawn on a '2d' canvas, then closed;
//   decoder-bitmap-2d  decoder-2d, the (YUV) frame converted to RGB once on an OffscreenCanvas and
//                  the canvases drawing that bitmap (with --canvases 2, as the app shows it twice);
//   MODE-ws-text   any of these, the frames pushed over a WebSocket as the harness's wire sends
//                  them (JSON text, the bytes as base64): what carrying them costs this page;
//   MODE-ws-binary the same, each frame one binary WebSocket message;
//   MODE-ws-text+upd  also a job.update-sized JSON message (490 B, parsed, nothing shown) before
//                  each frame: what a second message per step costs the page;
//   MODE-ws-text+note the page acknowledges each frame with a one-way message (the app's ack);
//   MODE-ws-text+call the same, and the server answers each acknowledgement (the ack as a call);
//   bitmap-2d-title  bitmap-2d, and document.title changed with each frame (the window title's
//                  progress: in this Chromium each change repaints the browser's own UI);
//   none           the page idle, for reference.
// bench/app-cost.ts's figures while generating cannot go below the row that matches the app.
//
//   npx tsx bench/preview-display.ts [--fps 10] [--seconds 10] [--rounds 2] [--modes bitmap-2d,decoder-2d,...] [--canvases 1]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { WebSocketServer } from 'ws';
import { setTimeout as sleep } from 'node:timers/promises';
import { launchBenchBrowser, newBenchPage } from './support/browser';
import { makeJpegs } from './preview-fake-server';
import { chromiumKind, CpuWindow, descendantsOf, loadAverage } from './support/proc-cpu';

type Shown = 'img-predecode' | 'img-only' | 'bitmap-canvas' | 'bitmap-2d' | 'decoder-2d' | 'decoder-bitmap-2d' | 'bitmap-2d-title' | 'none';
/** How a frame is shown, and where it comes from: a timer in the page, or the bench's WebSocket (-ws-text, -ws-binary, then +extras). */
type Mode = Shown | `${Shown}-ws-${'text' | 'binary'}${'' | `+${string}`}`;

/** A job.update as the harness sends one while a job runs (about 490 B). */
const UPDATE_MESSAGE = JSON.stringify({
  kind: 'event',
  name: 'job.update',
  payload: {
    promptId: '0f6d1c1e-7a0b-4f4e-9a51-3c2f0e8b9d21',
    profileId: 'demo',
    label: 'bench pacer',
    phase: 'running',
    status: 'running',
    currentNode: '1',
    progress: { value: 17, max: 60 },
    overall: 0.28,
    nodesDone: 0,
    nodesTotal: 1,
    progressText: null,
    outputs: [],
    error: null,
    createdAt: '2026-11-29T03:00:00.000Z',
    updatedAt: '2026-11-29T03:00:08.512Z',
    reachable: true,
  },
});

// Page code as text: the benchmarks are type-checked without the DOM library. `show(bytes)` puts
// one frame on screen the mode's way; the frames come from a timer in the page, or for the -ws-
// modes from the bench's WebSocket (pushed at the rate by the server, as the harness does).
const SHOW_FRAMES = `function (source, interval, canvases) {
  const mode = source.replace(/-ws-(text|binary).*$/, '');
  const extras = source.split('+').slice(1);
  clearInterval(window.timer);
  if (window.socket) window.socket.close();
  window.socket = null;
  const host = document.getElementById('host');
  host.replaceChildren();
  if (mode === 'none') return;
  const img = document.createElement('img');
  img.style.maxWidth = '100%';
  const canvasMode = mode !== 'img-predecode' && mode !== 'img-only';
  // The app shows a running job's frame twice (the stage and the job's card): --canvases 2.
  const contexts = [];
  for (let k = 0; k < (canvasMode ? canvases : 1); k += 1) {
    const canvas = document.createElement('canvas');
    canvas.width = 512;
    canvas.height = 512;
    canvas.style.maxWidth = k === 0 ? '100%' : '160px';
    contexts.push(mode === 'bitmap-canvas' ? canvas.getContext('bitmaprenderer') : canvas.getContext('2d'));
    host.append(canvas);
  }
  if (!canvasMode) host.replaceChildren(img);
  const drawAll = (picture) => {
    for (const context2d of contexts) context2d.drawImage(picture, 0, 0);
  };
  const converter = new OffscreenCanvas(512, 512).getContext('2d');
  let n = 0;
  let previous = null;
  const show = async (bytes) => {
    n += 1;
    if (mode.startsWith('decoder')) {
      const decoder = new ImageDecoder({ data: bytes, type: 'image/jpeg' });
      const { image } = await decoder.decode();
      decoder.close();
      if (mode === 'decoder-bitmap-2d') {
        // The frame is YUV: converted to RGB once, then every canvas copies the bitmap.
        converter.drawImage(image, 0, 0);
        image.close();
        const bitmap = converter.canvas.transferToImageBitmap();
        drawAll(bitmap);
        bitmap.close();
        return;
      }
      drawAll(image);
      image.close();
      return;
    }
    const blob = new Blob([bytes], { type: 'image/jpeg' });
    if (mode === 'bitmap-canvas') {
      for (const context of contexts) context.transferFromImageBitmap(await createImageBitmap(blob));
      return;
    }
    if (mode === 'bitmap-2d' || mode === 'bitmap-2d-title') {
      const bitmap = await createImageBitmap(blob);
      drawAll(bitmap);
      bitmap.close();
      if (mode === 'bitmap-2d-title') document.title = 'frame ' + n;
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
  };
  if (source !== mode) {
    const socket = new WebSocket(location.origin.replace('http', 'ws') + '/frames?' + source + '&' + interval);
    socket.binaryType = 'arraybuffer';
    let acks = 0;
    socket.onmessage = (event) => {
      if (typeof event.data !== 'string') return void show(new Uint8Array(event.data));
      // As the harness's wire: JSON text, the bytes as base64.
      const message = JSON.parse(event.data);
      if (message.kind !== 'event' || message.name !== 'job.preview') return;
      const binary = atob(message.payload.bytes['$fd:bytes']);
      const out = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i += 1) out[i] = binary.charCodeAt(i);
      const shown = show(out);
      if (extras.includes('note') || extras.includes('call')) {
        const ack = { promptId: message.payload.promptId, seq: message.payload.seq };
        const kind = extras.includes('call') ? { kind: 'call', id: ++acks } : { kind: 'note' };
        void shown.then(() => socket.send(JSON.stringify({ ...kind, name: 'preview.ack', input: ack })));
      }
    };
    window.socket = socket;
    return;
  }
  window.timer = setInterval(() => void show(window.pictures[n % window.pictures.length]), interval);
}`;

/**
 * The page's origin: an HTTP server on 127.0.0.1 (a secure context, as the app's page is: WebCodecs'
 * ImageDecoder exists only there) whose WebSocket pushes frames at the asked rate, for the -ws- modes.
 */
async function startFrameServer(pictures: Uint8Array[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<div id="host" style="width: 400px"></div>');
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket, request) => {
    const [mode = '', interval = '100'] = (request.url ?? '').split('?')[1]?.split('&') ?? [];
    const extras = decodeURIComponent(mode).split('+').slice(1);
    // +call: the acknowledgement is answered, as a call was (a result of about 65 B).
    if (extras.includes('call'))
      socket.on('message', (data) => {
        const { id } = JSON.parse(String(data)) as { id?: number };
        socket.send(JSON.stringify({ kind: 'result', id, envelope: { ok: true, value: null } }));
      });
    let n = 0;
    const timer = setInterval(() => {
      const bytes = pictures[n++ % pictures.length]!;
      if (extras.includes('upd')) socket.send(UPDATE_MESSAGE);
      if (mode.includes('binary')) socket.send(bytes);
      else
        socket.send(
          JSON.stringify({
            kind: 'event',
            name: 'job.preview',
            payload: { promptId: 'p', seq: n, bytes: { '$fd:bytes': Buffer.from(bytes).toString('base64') } },
          }),
        );
    }, Number(interval));
    socket.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((done) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        server.close(() => done());
      }),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      fps: { type: 'string', default: '10' },
      seconds: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '2' },
      modes: { type: 'string' },
      canvases: { type: 'string', default: '1' },
    },
  });
  const fps = Number(values.fps);
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const canvases = Number(values.canvases);
  const jpegs = makeJpegs(4);
  const pictures = jpegs.map((j) => Buffer.from(j).toString('base64'));
  const frameServer = await startFrameServer(jpegs);
  const browser = await launchBenchBrowser();
  try {
    const page = await newBenchPage(browser);
    await page.goto(frameServer.url);
    await page.evaluate(`window.pictures = ${JSON.stringify(pictures)}.map((b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)))`);
    const pids = descendantsOf(process.pid)
      .filter((p) => /chrom/i.test(p.comm))
      .map((p) => p.pid);
    console.log(
      `preview display floor: 512x512 JPEG (${Math.round((pictures[0]!.length * 3) / 4 / 1024)} KiB) at ${fps} frames/s on ${canvases} canvas(es), ${seconds} s per row, bare page; load ${loadAverage()}`,
    );
    const modes = (values.modes?.split(',') ?? [
      'img-predecode',
      'img-only',
      'bitmap-canvas',
      'bitmap-2d',
      'decoder-2d',
      'decoder-2d-ws-text',
      'decoder-2d-ws-binary',
      'bitmap-2d-title',
      'none',
    ]) as Mode[];
    for (let round = 1; round <= rounds; round += 1) {
      for (const mode of modes) {
        await page.evaluate(`(${SHOW_FRAMES})(${JSON.stringify(mode)}, ${1000 / fps}, ${canvases})`);
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
    await frameServer.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});

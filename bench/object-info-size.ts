// What a large install's node definitions cost `flowdeck watch --once` before its first file: the
// --bind check needs one class, and a local server answers /api/object_info/{class} with it
// (service/node-definitions-of.ts), where the whole /api/object_info of a server with many custom
// node packs is megabytes to build, send and parse exactly. A proxy in front of a local demo serves
// a whole list of the given size (the demo's own classes, copied under other names; the one-class
// route and everything else, the socket too, pass through to the demo), and an empty folder is
// watched through it: this build beside a baseline build (FLOWDECK_BENCH_BASELINE_CLI, which read
// the whole list), alternating, each run a fresh process and data folder timed by GNU time.
//   FLOWDECK_BENCH_BASELINE_CLI=PATH npx tsx bench/object-info-size.ts [runs] [megabytes]   (default 5 runs, 8 MB)
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { BASELINE_CLI, CLI, inWorkDir, loadAverage, median, requireBuiltCli, watchOnceArgs } from './support/cli-bench';
import { measureCommand, startDemoChild, type MeasuredRun } from './support/processes';

const RUNS = Math.max(1, Number(process.argv[2] ?? 5));
const MEGABYTES = Math.max(0.1, Number(process.argv[3] ?? 8));

const WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'bench/object-info' } },
};

/** The demo's definitions, then copies of them under other class names, to about `megabytes`. */
async function bigObjectInfo(demoUrl: string, megabytes: number): Promise<{ body: Buffer; classes: number }> {
  const own = (await (await fetch(`${demoUrl}/api/object_info`)).json()) as Record<string, unknown>;
  const whole: Record<string, unknown> = { ...own };
  const ownBytes = Buffer.byteLength(JSON.stringify(own));
  for (let copy = 1; copy * ownBytes < megabytes * 1024 * 1024; copy += 1) {
    for (const [name, definition] of Object.entries(own)) whole[`${name}_pack${copy}`] = definition;
  }
  return { body: Buffer.from(JSON.stringify(whole)), classes: Object.keys(whole).length };
}

/** Serves the whole list itself; passes every other request, and the socket's upgrade, to the demo. */
async function startProxy(demoUrl: string, whole: Buffer): Promise<{ url: string; wholeLists: () => number; close: () => Promise<void> }> {
  const target = new URL(demoUrl);
  let wholeLists = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && (req.url === '/api/object_info' || req.url === '/object_info')) {
      wholeLists += 1;
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': whole.length }).end(whole);
      return;
    }
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const upstream = connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`, ...Object.entries(req.headers).map(([k, v]) => `${k}: ${String(v)}`), '', ''];
      upstream.write(lines.join('\r\n'));
      upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    wholeLists: () => wholeLists,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
    },
  };
}

requireBuiltCli();
if (!BASELINE_CLI) console.log('(no FLOWDECK_BENCH_BASELINE_CLI: this build alone)');
await inWorkDir('flowdeck-bench-object-info-', async (work) => {
  const loadBefore = loadAverage();
  const empty = join(work, 'empty');
  mkdirSync(empty);
  const workflowPath = join(work, 'workflow.json');
  writeFileSync(workflowPath, JSON.stringify(WORKFLOW));
  const demo = await startDemoChild('local');
  const { body, classes } = await bigObjectInfo(demo.url, MEGABYTES);
  const proxy = await startProxy(demo.url, body);
  try {
    const sides = [{ label: 'this build', cli: CLI }, ...(BASELINE_CLI ? [{ label: 'baseline', cli: BASELINE_CLI }] : [])];
    const runs = new Map<string, { run: MeasuredRun; wholeLists: number }[]>(sides.map((s) => [s.label, []]));
    for (let i = 0; i < RUNS; i += 1) {
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
        const dataDir = join(work, `data-${i}-${side.label}`);
        const before = proxy.wholeLists();
        try {
          const run = await measureCommand(process.execPath, watchOnceArgs(side.cli, empty, workflowPath, proxy.url), {
            env: { ...process.env, FLOWDECK_DATA_DIR: dataDir },
            quiet: true,
          });
          runs.get(side.label)!.push({ run, wholeLists: proxy.wholeLists() - before });
        } finally {
          rmSync(dataDir, { recursive: true, force: true });
          rmSync(join(empty, 'output'), { recursive: true, force: true });
        }
      }
    }
    console.log(
      `\`watch EMPTY --once --bind 1.image\` against a local server whose /api/object_info is ${(body.length / 1024 / 1024).toFixed(1)} MB (${classes} classes), median of ${RUNS} runs each, alternating:`,
    );
    for (const side of sides) {
      const rows = runs.get(side.label)!;
      const cpu = median(rows.map((r) => r.run.cpuSeconds));
      const wall = median(rows.map((r) => r.run.seconds));
      const rss = median(rows.map((r) => r.run.maxRssMb));
      console.log(
        `  ${side.label.padEnd(10)} cpu ${cpu.toFixed(2)} s, wall ${wall.toFixed(2)} s, peak RSS ${rss.toFixed(0)} MB, whole lists asked per run ${median(rows.map((r) => r.wholeLists))}`,
      );
    }
    if (BASELINE_CLI) {
      const med = (label: string, pick: (r: MeasuredRun) => number): number => median(runs.get(label)!.map((r) => pick(r.run)));
      console.log(
        `  this build / baseline: cpu ${(med('this build', (r) => r.cpuSeconds) / med('baseline', (r) => r.cpuSeconds)).toFixed(2)}x, wall ${(med('this build', (r) => r.seconds) / med('baseline', (r) => r.seconds)).toFixed(2)}x`,
      );
    }
    console.log(`  load average before ${loadBefore}, after ${loadAverage()} (2 cores, shared)`);
  } finally {
    await proxy.close();
    await demo.stop();
  }
});

// Issue 22: "a v2 run's overhead per job is at most the official SDK's on the same server (wall,
// side by side)". The demo as a v2-only deployment (instant jobs: LoadImage -> ImageInvert ->
// SaveImage of a 64x64 PNG), behind a small counting proxy, run by:
// - Flowdeck: the built CLI, `flowdeck run WF --server URL --upload 1.image=IMG --out DIR --json`
//   (the v2 path: hash, asset by hash or upload, submit under an Idempotency-Key, follow, download;
//   journal and library included), once per process (one `flowdeck run` per job, one after
//   another: the issue's "a v2 run"), and N jobs in one process (`--repeat N`; on a single server
//   Flowdeck sends them all at once, whatever --concurrency says);
// - the SDK: bench/sdk-v2-client.ts (@comfyorg/sdk: assets.fromFile, run, toFile), the same ways,
//   its N jobs one after another (run() waits for each).
// Rounds alternate which goes first; each side gets a fresh demo. Every client is a plain node
// process under GNU time (wall, CPU of its process tree); the server runs in this process and is
// in neither. The proxy counts each client's requests by method and path, so a difference in wall
// time can be read against what each asked for.
//   npx tsx bench/v2-vs-sdk.ts [jobs] [rounds] [single-runs]    (needs `npm run build` first)
//   FLOWDECK_BENCH_CPU_PROF=DIR ...                             every side under node --cpu-prof
//   FLOWDECK_BENCH_BASELINE_CLI=PATH ...                        also an earlier build's cli.js, every round
// A third side, the floor: the same SDK client doing Flowdeck's bookkeeping plainly (sdk-v2-client.ts
// `bookkeeping`), so "Flowdeck / SDK" can be read beside "Flowdeck / SDK+bookkeeping". Each side's
// timeline (through the proxy) splits its wall into spawn to first request, the requests, and exit.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { DemoService } from '../src/main/demo';
import { alternateRounds, BASELINE_CLI, CLI, cpuProfileArgs, inWorkDir, loadAverage, median, requireBuiltCli } from './support/cli-bench';
import { distinctPng } from './support/images';
import { measureCommand, type MeasuredRun } from './support/processes';

const JOBS = Math.max(2, Number(process.argv[2] ?? 20));
const ROUNDS = Math.max(1, Number(process.argv[3] ?? 3));
const SINGLE_RUNS = Math.max(0, Number(process.argv[4] ?? 5));

const WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'v2bench' } },
};

/** Requests by "METHOD /path" with ids and queries left out. */
type Counts = Map<string, number>;

/** One forwarded request: its route, when it came in and when its answer ended (ms, performance.now()). */
interface Forwarded {
  route: string;
  start: number;
  end: number;
}

function routeOf(method: string, url: string): string {
  const path = url
    .split('?')[0]!
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, ':id')
    .replace(/\/by-hash\/[^/]+/, '/by-hash/:hash');
  return `${method} ${path}`;
}

/** A pass-through HTTP proxy in front of `target` that counts the requests it forwards. */
async function countingProxy(target: string): Promise<{ url: string; counts: Counts; timeline: Forwarded[]; close(): Promise<void> }> {
  const to = new URL(target);
  const counts: Counts = new Map();
  const timeline: Forwarded[] = [];
  const server = http.createServer((req, res) => {
    const route = routeOf(req.method ?? 'GET', req.url ?? '/');
    counts.set(route, (counts.get(route) ?? 0) + 1);
    const entry: Forwarded = { route, start: performance.now(), end: Number.NaN };
    timeline.push(entry);
    res.on('close', () => (entry.end = performance.now()));
    const upstream = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    counts,
    timeline,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function bundleSdkClient(work: string): Promise<string> {
  const outfile = join(work, 'sdk-v2-client.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, 'sdk-v2-client.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  return outfile;
}

interface SideRun extends MeasuredRun {
  jobs: number;
  counts: Counts;
  /** Summed over the side's processes (ms): spawn to first request, first request to last answer, last answer to exit. */
  phases: { start: number; requests: number; exit: number };
}

/** `runs` client processes of `jobs` jobs each against a fresh v2-only demo behind the proxy. */
async function side(
  work: string,
  label: string,
  runs: number,
  jobs: number,
  command: (server: string, out: string, dataDir: string, jobs: number) => { args: string[]; env: NodeJS.ProcessEnv },
): Promise<SideRun> {
  const dir = join(work, label);
  mkdirSync(dir, { recursive: true });
  const demo = new DemoService({ flavour: 'local', v2: 'only', timeScale: 0 });
  await demo.start();
  const proxy = await countingProxy(demo.url);
  const total: SideRun = { seconds: 0, cpuSeconds: 0, maxRssMb: 0, stdout: '', jobs: 0, counts: proxy.counts, phases: { start: 0, requests: 0, exit: 0 } };
  try {
    for (let run = 0; run < runs; run += 1) {
      const out = join(dir, `out-${run}`);
      const { args, env } = command(proxy.url, out, join(dir, 'data'), jobs);
      const seen = proxy.timeline.length;
      const spawnedAt = performance.now();
      const measured = await measureCommand(process.execPath, [...cpuProfileArgs(`${label}-${run}`), ...args], { env, quiet: true });
      const exitedAt = performance.now();
      const own = proxy.timeline.slice(seen);
      if (own.length > 0) {
        const firstAt = own[0]!.start;
        const lastEnd = Math.max(...own.map((f) => (Number.isNaN(f.end) ? exitedAt : f.end)));
        total.phases.start += firstAt - spawnedAt;
        total.phases.requests += lastEnd - firstAt;
        total.phases.exit += exitedAt - lastEnd;
      }
      const files = readdirSync(out).filter((n) => n.endsWith('.png')).length;
      if (files !== jobs) throw new Error(`${label} wrote ${files} outputs for ${jobs} jobs`);
      total.seconds += measured.seconds;
      total.cpuSeconds += measured.cpuSeconds;
      total.maxRssMb = Math.max(total.maxRssMb, measured.maxRssMb);
      total.jobs += jobs;
    }
  } finally {
    await proxy.close();
    await demo.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return total;
}

function describeCounts(counts: Counts, jobs: number): string {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([route, n]) => `${route} ${(n / jobs).toFixed(2)}`)
    .join(', ');
}

export async function v2VsSdkBench(): Promise<Record<string, number>> {
  requireBuiltCli();
  return inWorkDir('flowdeck-bench-v2-sdk-', async (work) => {
    const loadBefore = loadAverage();
    const image = join(work, 'input.png');
    writeFileSync(image, distinctPng(7, 64));
    const workflowPath = join(work, 'workflow.json');
    writeFileSync(workflowPath, JSON.stringify(WORKFLOW));
    const sdkClient = await bundleSdkClient(work);
    const flowdeckCommand =
      (repeat: boolean, cli = CLI) =>
      (server: string, out: string, dataDir: string, jobs: number): { args: string[]; env: NodeJS.ProcessEnv } => ({
        args: [
          cli,
          'run',
          workflowPath,
          '--server',
          server,
          '--upload',
          `1.image=${image}`,
          '--out',
          out,
          '--json',
          ...(repeat ? ['--repeat', String(jobs), '--concurrency', '1'] : []),
        ],
        env: { ...process.env, FLOWDECK_DATA_DIR: dataDir },
      });
    const sdkCommandOf =
      (bookkeeping: boolean) =>
      (server: string, out: string, _dataDir: string, jobs: number): { args: string[]; env: NodeJS.ProcessEnv } => ({
        args: [sdkClient, workflowPath, '1.image', image, out, String(jobs), ...(bookkeeping ? ['bookkeeping'] : [])],
        env: { ...process.env, COMFY_BASE_URL: server },
      });
    const sdkCommand = sdkCommandOf(false);
    const floorCommand = sdkCommandOf(true);

    // floor: the SDK client doing Flowdeck's bookkeeping plainly (sdk-v2-client.ts `bookkeeping`).
    // before: FLOWDECK_BENCH_BASELINE_CLI (an earlier build), run beside the others every round.
    const results: { mode: string; flowdeck: SideRun[]; sdk: SideRun[]; floor: SideRun[]; before: SideRun[] }[] = [
      { mode: `${JOBS} jobs in one process (flowdeck --repeat: sent at once; sdk: one after another)`, flowdeck: [], sdk: [], floor: [], before: [] },
      ...(SINGLE_RUNS > 0 ? [{ mode: `one job per process (${SINGLE_RUNS} processes)`, flowdeck: [], sdk: [], floor: [], before: [] }] : []),
    ];
    await alternateRounds(
      ROUNDS,
      async (round) => {
        const now = async (): Promise<void> => {
          results[0]!.flowdeck.push(await side(work, `flowdeck-repeat-${round}`, 1, JOBS, flowdeckCommand(true)));
          if (results[1]) results[1].flowdeck.push(await side(work, `flowdeck-single-${round}`, SINGLE_RUNS, 1, flowdeckCommand(false)));
        };
        const before = async (baseline: string): Promise<void> => {
          results[0]!.before.push(await side(work, `before-repeat-${round}`, 1, JOBS, flowdeckCommand(true, baseline)));
          if (results[1]) results[1].before.push(await side(work, `before-single-${round}`, SINGLE_RUNS, 1, flowdeckCommand(false, baseline)));
        };
        const baseline = BASELINE_CLI;
        const parts = baseline ? [now, () => before(baseline)] : [now];
        for (const part of round % 2 === 0 ? parts : parts.reverse()) await part();
      },
      async (round) => {
        // The plain SDK and the SDK with bookkeeping alternate too.
        const plain = async (): Promise<void> => {
          results[0]!.sdk.push(await side(work, `sdk-repeat-${round}`, 1, JOBS, sdkCommand));
          if (results[1]) results[1].sdk.push(await side(work, `sdk-single-${round}`, SINGLE_RUNS, 1, sdkCommand));
        };
        const floor = async (): Promise<void> => {
          results[0]!.floor.push(await side(work, `floor-repeat-${round}`, 1, JOBS, floorCommand));
          if (results[1]) results[1].floor.push(await side(work, `floor-single-${round}`, SINGLE_RUNS, 1, floorCommand));
        };
        for (const part of round % 2 === 0 ? [plain, floor] : [floor, plain]) await part();
      },
      (round) => {
        for (const r of results) {
          const f = r.flowdeck[round]!;
          const s = r.sdk[round]!;
          const b = r.floor[round]!;
          const ms = (run: SideRun): string =>
            `${((run.seconds / run.jobs) * 1000).toFixed(0)} ms wall, ${((run.cpuSeconds / run.jobs) * 1000).toFixed(0)} ms cpu per job`;
          const was = r.before[round];
          console.log(`  round ${round + 1}, ${r.mode}: flowdeck ${ms(f)}; sdk ${ms(s)}; sdk+bookkeeping ${ms(b)}${was ? `; flowdeck before ${ms(was)}` : ''}`);
        }
      },
    );
    const figures: Record<string, number> = { jobs: JOBS, rounds: ROUNDS };
    console.log(`a v2 run per job, Flowdeck (\`flowdeck run\`) vs @comfyorg/sdk, v2-only demo (instant jobs), ${ROUNDS} alternating rounds:`);
    for (const [i, r] of results.entries()) {
      const perJob = (runs: SideRun[], pick: (s: SideRun) => number): number => median(runs.map((s) => (pick(s) / s.jobs) * 1000));
      const wallRatios = r.flowdeck.map((f, k) => f.seconds / f.jobs / (r.sdk[k]!.seconds / r.sdk[k]!.jobs));
      const cpuRatios = r.flowdeck.map((f, k) => f.cpuSeconds / f.jobs / (r.sdk[k]!.cpuSeconds / r.sdk[k]!.jobs));
      const floorRatios = r.flowdeck.map((f, k) => f.seconds / f.jobs / (r.floor[k]!.seconds / r.floor[k]!.jobs));
      const floorCostRatios = r.floor.map((b, k) => b.seconds / b.jobs / (r.sdk[k]!.seconds / r.sdk[k]!.jobs));
      const name = i === 0 ? 'repeat' : 'single';
      figures[`${name}FlowdeckWallMsPerJob`] = perJob(r.flowdeck, (s) => s.seconds);
      figures[`${name}SdkWallMsPerJob`] = perJob(r.sdk, (s) => s.seconds);
      figures[`${name}FlowdeckCpuMsPerJob`] = perJob(r.flowdeck, (s) => s.cpuSeconds);
      figures[`${name}SdkCpuMsPerJob`] = perJob(r.sdk, (s) => s.cpuSeconds);
      figures[`${name}WallRatio`] = median(wallRatios);
      figures[`${name}CpuRatio`] = median(cpuRatios);
      figures[`${name}FloorWallMsPerJob`] = perJob(r.floor, (s) => s.seconds);
      figures[`${name}FloorCpuMsPerJob`] = perJob(r.floor, (s) => s.cpuSeconds);
      figures[`${name}FlowdeckOverFloor`] = median(floorRatios);
      figures[`${name}FloorOverSdk`] = median(floorCostRatios);
      console.log(`  ${r.mode}:`);
      console.log(
        `    wall per job: flowdeck ${figures[`${name}FlowdeckWallMsPerJob`]!.toFixed(0)} ms, sdk ${figures[`${name}SdkWallMsPerJob`]!.toFixed(0)} ms: ratio ${figures[`${name}WallRatio`]!.toFixed(2)}x (rounds ${wallRatios.map((x) => x.toFixed(2)).join(', ')}; target <= 1.0x): ${figures[`${name}WallRatio`]! <= 1 ? 'met' : 'NOT met'}`,
      );
      console.log(
        `    cpu per job:  flowdeck ${figures[`${name}FlowdeckCpuMsPerJob`]!.toFixed(0)} ms, sdk ${figures[`${name}SdkCpuMsPerJob`]!.toFixed(0)} ms: ratio ${figures[`${name}CpuRatio`]!.toFixed(2)}x (rounds ${cpuRatios.map((x) => x.toFixed(2)).join(', ')})`,
      );
      console.log(
        `    floor (sdk + bookkeeping: journal line fsynced before the send, output + sidecar fsynced in a library folder, copied out): ${figures[`${name}FloorWallMsPerJob`]!.toFixed(0)} ms wall, ${figures[`${name}FloorCpuMsPerJob`]!.toFixed(0)} ms cpu per job; floor / sdk ${figures[`${name}FloorOverSdk`]!.toFixed(2)}x (rounds ${floorCostRatios.map((x) => x.toFixed(2)).join(', ')}); flowdeck / floor ${figures[`${name}FlowdeckOverFloor`]!.toFixed(2)}x (rounds ${floorRatios.map((x) => x.toFixed(2)).join(', ')})`,
      );
      if (r.before.length > 0) {
        const beforeRatios = r.before.map((b, k) => b.seconds / b.jobs / (r.sdk[k]!.seconds / r.sdk[k]!.jobs));
        const gain = r.flowdeck.map((f, k) => f.seconds / f.jobs / (r.before[k]!.seconds / r.before[k]!.jobs));
        figures[`${name}BeforeWallMsPerJob`] = perJob(r.before, (s) => s.seconds);
        figures[`${name}BeforeWallRatio`] = median(beforeRatios);
        figures[`${name}AfterOverBefore`] = median(gain);
        console.log(
          `    before (${BASELINE_CLI}): ${figures[`${name}BeforeWallMsPerJob`]!.toFixed(0)} ms wall, ${perJob(r.before, (s) => s.cpuSeconds).toFixed(0)} ms cpu per job; before / sdk ${figures[`${name}BeforeWallRatio`]!.toFixed(2)}x (rounds ${beforeRatios.map((x) => x.toFixed(2)).join(', ')}); now / before ${figures[`${name}AfterOverBefore`]!.toFixed(2)}x (rounds ${gain.map((x) => x.toFixed(2)).join(', ')})`,
        );
      }
      const last = r.flowdeck.length - 1;
      for (const [who, runs] of [
        ['flowdeck', r.flowdeck],
        ['sdk', r.sdk],
        ['sdk+bookkeeping', r.floor],
      ] as const) {
        const p = (pick: (s: SideRun) => number): string => median(runs.map(pick)).toFixed(0);
        const perProcess = runs[0]!.jobs / Math.max(1, i === 0 ? 1 : SINGLE_RUNS);
        console.log(
          `    timeline per process (${perProcess} job${perProcess === 1 ? '' : 's'}), ${who}: spawn to first request ${p((s) => s.phases.start / (s.jobs / perProcess))} ms, first request to last answer ${p((s) => s.phases.requests / (s.jobs / perProcess))} ms, last answer to exit ${p((s) => s.phases.exit / (s.jobs / perProcess))} ms`,
        );
      }
      console.log(`    requests per job, flowdeck (last round): ${describeCounts(r.flowdeck[last]!.counts, r.flowdeck[last]!.jobs)}`);
      console.log(`    requests per job, sdk (last round):      ${describeCounts(r.sdk[last]!.counts, r.sdk[last]!.jobs)}`);
    }
    console.log(`  load average before ${loadBefore}, after ${loadAverage()} (2 cores, shared)`);
    console.log(JSON.stringify(figures));
    return figures;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await v2VsSdkBench();
}

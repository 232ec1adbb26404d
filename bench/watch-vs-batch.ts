// 200 images at concurrency 8 through `flowdeck watch DIR --once` (the built CLI, as users run it:
// journal, hashes, sidecars, library, a fresh data folder each round) side by side with a batch
// client on the community SDK `@saintno/comfyui-sdk` (bench/sdk-batch-client.ts, issue 25's
// yardstick) and a plain fetch + WebSocket batch client (bench/batch-client.ts, no Flowdeck code),
// alternating which goes first, and a lean client (bench/lean-client.ts: the same requests over node:http, nothing else)
// as the floor of what any Node client making these requests spends. Each side gets a fresh
// instant-job demo service (local flavour) in its own process: the server numbers outputs by
// listing its output folder, so sharing one would charge the second for the first. Every side is a
// plain node process timed by GNU time: wall time, and CPU time (user + system) of the whole
// process tree; the server's CPU is in none.
//   npx tsx bench/watch-vs-batch.ts [images] [rounds]      (needs `npm run build` first)
//   FLOWDECK_BENCH_CPU_PROF=DIR ...                        runs both sides under node --cpu-prof
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  alternateRounds,
  BASELINE_CLI,
  bundleClient,
  CLI,
  cpuProfileArgs,
  inWorkDir,
  loadAverage,
  median,
  requireBuiltCli,
  watchOnceArgs,
} from './support/cli-bench';
import { distinctPng } from './support/images';
import { measureCommand, startDemoChild, type MeasuredRun } from './support/processes';

const IMAGES = Math.max(1, Number(process.argv[2] ?? 200));
const ROUNDS = Math.max(1, Number(process.argv[3] ?? 3));
const CONCURRENCY = 8;

function workflow(prefix: string): object {
  return {
    '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
  };
}

function countOutputs(dir: string, pattern: RegExp): number {
  return readdirSync(dir).filter((n) => pattern.test(n)).length;
}

async function flowdeckSide(work: string, images: string, round: number, cli = CLI): Promise<MeasuredRun> {
  const dir = join(work, `fd-${round}${cli === CLI ? '' : '-baseline'}`);
  const inDir = join(dir, 'in');
  const outDir = join(dir, 'out');
  const dataDir = join(dir, 'data');
  cpSync(images, inDir, { recursive: true });
  mkdirSync(dataDir);
  const workflowPath = join(dir, 'workflow.json');
  writeFileSync(workflowPath, JSON.stringify(workflow('bench/watch')));
  const demo = await startDemoChild('local');
  try {
    const args = [
      ...cpuProfileArgs(`watch-${round}`),
      ...watchOnceArgs(cli, inDir, workflowPath, demo.url, ['--out', outDir, '--concurrency', String(CONCURRENCY), '--json']),
    ];
    const measured = await measureCommand(process.execPath, args, { env: { ...process.env, FLOWDECK_DATA_DIR: dataDir }, quiet: true });
    const pngs = countOutputs(outDir, /\.png$/);
    const sidecars = countOutputs(outDir, /\.json$/);
    if (pngs !== IMAGES || sidecars < IMAGES) throw new Error(`flowdeck watch wrote ${pngs} outputs and ${sidecars} sidecars for ${IMAGES} images`);
    return measured;
  } finally {
    await demo.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function clientSide(work: string, images: string, client: string, label: string, round: number, extra: string[] = []): Promise<MeasuredRun> {
  const dir = join(work, `${label}-${round}`);
  const outDir = join(dir, 'out');
  mkdirSync(dir);
  const workflowPath = join(dir, 'workflow.json');
  writeFileSync(workflowPath, JSON.stringify(workflow('bench/batch')));
  const demo = await startDemoChild('local');
  try {
    const measured = await measureCommand(process.execPath, [
      ...cpuProfileArgs(`${label}-${round}`),
      client,
      demo.url,
      images,
      outDir,
      workflowPath,
      '1.image',
      String(CONCURRENCY),
      ...extra,
    ]);
    const pngs = countOutputs(outDir, /\.png$/);
    if (pngs !== IMAGES) throw new Error(`the ${label} client wrote ${pngs} outputs for ${IMAGES} images`);
    return measured;
  } finally {
    await demo.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function watchVsBatchBench(): Promise<Record<string, number>> {
  requireBuiltCli();
  return inWorkDir('flowdeck-bench-watch-', async (work) => {
    const loadBefore = loadAverage();
    const images = join(work, 'images');
    mkdirSync(images);
    for (let i = 0; i < IMAGES; i += 1) writeFileSync(join(images, `img-${String(i).padStart(4, '0')}.png`), distinctPng(i, 64));
    const client = await bundleClient(work, 'batch-client');
    const leanClient = await bundleClient(work, 'lean-client');
    const sdkClient = await bundleClient(work, 'sdk-batch-client');
    const flowdeck: MeasuredRun[] = [];
    const batch: MeasuredRun[] = [];
    const sdk: MeasuredRun[] = [];
    const sdkDurable: MeasuredRun[] = [];
    const lean: MeasuredRun[] = [];
    const baseline: MeasuredRun[] = [];
    await alternateRounds(
      ROUNDS,
      async (round) => void flowdeck.push(await flowdeckSide(work, images, round)),
      async (round) => {
        sdk.push(await clientSide(work, images, sdkClient, 'sdk', round));
        sdkDurable.push(await clientSide(work, images, sdkClient, 'sdk-durable', round, ['durable']));
        batch.push(await clientSide(work, images, client, 'batch', round));
        lean.push(await clientSide(work, images, leanClient, 'lean', round));
        if (BASELINE_CLI) baseline.push(await flowdeckSide(work, images, round, BASELINE_CLI));
      },
      (round) => {
        const f = flowdeck[round]!;
        const b = batch[round]!;
        if (BASELINE_CLI)
          console.log(`  round ${round + 1}: baseline watch ${baseline[round]!.seconds.toFixed(2)} s wall, ${baseline[round]!.cpuSeconds.toFixed(2)} s cpu`);
        const l = lean[round]!;
        const k = sdk[round]!;
        const d = sdkDurable[round]!;
        console.log(
          `  round ${round + 1}: flowdeck watch ${f.seconds.toFixed(2)} s wall, ${f.cpuSeconds.toFixed(2)} s cpu, peak RSS ${f.maxRssMb.toFixed(0)} MB; sdk client ${k.seconds.toFixed(2)} s wall, ${k.cpuSeconds.toFixed(2)} s cpu, peak RSS ${k.maxRssMb.toFixed(0)} MB; sdk client + durable bookkeeping ${d.seconds.toFixed(2)} s wall, ${d.cpuSeconds.toFixed(2)} s cpu; batch client ${b.seconds.toFixed(2)} s wall, ${b.cpuSeconds.toFixed(2)} s cpu, peak RSS ${b.maxRssMb.toFixed(0)} MB; lean client ${l.seconds.toFixed(2)} s wall, ${l.cpuSeconds.toFixed(2)} s cpu`,
        );
      },
    );
    const sdkWallRatios = flowdeck.map((f, i) => f.seconds / sdk[i]!.seconds);
    const sdkCpuRatios = flowdeck.map((f, i) => f.cpuSeconds / sdk[i]!.cpuSeconds);
    const wallRatios = flowdeck.map((f, i) => f.seconds / batch[i]!.seconds);
    const cpuRatios = flowdeck.map((f, i) => f.cpuSeconds / batch[i]!.cpuSeconds);
    const leanCpuRatios = lean.map((l, i) => l.cpuSeconds / batch[i]!.cpuSeconds);
    const figures = {
      images: IMAGES,
      flowdeckWallMedianS: median(flowdeck.map((f) => f.seconds)),
      batchWallMedianS: median(batch.map((b) => b.seconds)),
      flowdeckCpuMedianS: median(flowdeck.map((f) => f.cpuSeconds)),
      batchCpuMedianS: median(batch.map((b) => b.cpuSeconds)),
      wallRatioMedian: median(wallRatios),
      cpuRatioMedian: median(cpuRatios),
      leanCpuMedianS: median(lean.map((l) => l.cpuSeconds)),
      leanCpuRatioMedian: median(leanCpuRatios),
      flowdeckPeakRssMb: Math.max(...flowdeck.map((f) => f.maxRssMb)),
      sdkWallMedianS: median(sdk.map((k) => k.seconds)),
      sdkCpuMedianS: median(sdk.map((k) => k.cpuSeconds)),
      sdkWallRatioMedian: median(sdkWallRatios),
      sdkCpuRatioMedian: median(sdkCpuRatios),
      sdkDurableCpuMedianS: median(sdkDurable.map((d) => d.cpuSeconds)),
      sdkDurableCpuRatioMedian: median(flowdeck.map((f, i) => f.cpuSeconds / sdkDurable[i]!.cpuSeconds)),
      sdkDurableWallMedianS: median(sdkDurable.map((d) => d.seconds)),
      sdkDurableWallRatioMedian: median(flowdeck.map((f, i) => f.seconds / sdkDurable[i]!.seconds)),
    };
    console.log(
      `${IMAGES} images at concurrency ${CONCURRENCY}, instant jobs (local demo): \`flowdeck watch --once\` (default settle, library on) vs a plain fetch + ws batch client, ${ROUNDS} alternating rounds:`,
    );
    console.log(
      `  vs the community SDK client (bench/sdk-batch-client.ts, @saintno/comfyui-sdk; issue 25's target: <= 1.0x both):\n` +
        `    wall  flowdeck median ${figures.flowdeckWallMedianS.toFixed(2)} s, sdk client ${figures.sdkWallMedianS.toFixed(2)} s: ratio ${figures.sdkWallRatioMedian.toFixed(2)}x (rounds ${sdkWallRatios.map((r) => r.toFixed(2)).join(', ')})\n` +
        `    cpu   flowdeck median ${figures.flowdeckCpuMedianS.toFixed(2)} s, sdk client ${figures.sdkCpuMedianS.toFixed(2)} s: ratio ${figures.sdkCpuRatioMedian.toFixed(2)}x (rounds ${sdkCpuRatios.map((r) => r.toFixed(2)).join(', ')})`,
    );
    console.log(
      `    floor: the sdk client with Flowdeck's bookkeeping done plainly (input sha256, journal lines, output + library copy + sidecar fsynced, folders fsynced) cpu median ${figures.sdkDurableCpuMedianS.toFixed(2)} s = ${(figures.sdkDurableCpuMedianS / figures.sdkCpuMedianS).toFixed(2)}x the sdk client, wall ${figures.sdkDurableWallMedianS.toFixed(2)} s = ${(figures.sdkDurableWallMedianS / figures.sdkWallMedianS).toFixed(2)}x; flowdeck / it: cpu ${figures.sdkDurableCpuRatioMedian.toFixed(2)}x, wall ${figures.sdkDurableWallRatioMedian.toFixed(2)}x`,
    );
    console.log(`  vs the plain fetch + ws client (bench/batch-client.ts; issue 12's target):`);
    console.log(
      `  wall  flowdeck median ${figures.flowdeckWallMedianS.toFixed(2)} s, batch client ${figures.batchWallMedianS.toFixed(2)} s: ratio ${figures.wallRatioMedian.toFixed(2)}x (rounds ${wallRatios.map((r) => r.toFixed(2)).join(', ')}; target <= 1.0x)`,
    );
    console.log(
      `  cpu   flowdeck median ${figures.flowdeckCpuMedianS.toFixed(2)} s, batch client ${figures.batchCpuMedianS.toFixed(2)} s: ratio ${figures.cpuRatioMedian.toFixed(2)}x (rounds ${cpuRatios.map((r) => r.toFixed(2)).join(', ')}; target <= 0.5x)`,
    );
    console.log(
      `  floor  lean client (bench/lean-client.ts: the same requests over node:http, nothing else) cpu median ${figures.leanCpuMedianS.toFixed(2)} s: ratio to the batch client ${figures.leanCpuRatioMedian.toFixed(2)}x (rounds ${leanCpuRatios.map((r) => r.toFixed(2)).join(', ')}); above 0.5x, no Node client making these requests meets the cpu target`,
    );
    console.log(`  flowdeck peak RSS ${figures.flowdeckPeakRssMb.toFixed(0)} MB`);
    if (BASELINE_CLI) {
      const wall = baseline.map((f, i) => f.seconds / batch[i]!.seconds);
      const cpu = baseline.map((f, i) => f.cpuSeconds / batch[i]!.cpuSeconds);
      const sdkWall = baseline.map((f, i) => f.seconds / sdk[i]!.seconds);
      const sdkCpu = baseline.map((f, i) => f.cpuSeconds / sdk[i]!.cpuSeconds);
      const ours = flowdeck.map((f, i) => f.cpuSeconds / baseline[i]!.cpuSeconds);
      console.log(
        `  baseline ${BASELINE_CLI}: vs the batch client wall ${median(wall).toFixed(2)}x (rounds ${wall.map((r) => r.toFixed(2)).join(', ')}), cpu ${median(cpu).toFixed(2)}x (rounds ${cpu.map((r) => r.toFixed(2)).join(', ')}); vs the sdk client wall ${median(sdkWall).toFixed(2)}x, cpu ${median(sdkCpu).toFixed(2)}x (rounds ${sdkCpu.map((r) => r.toFixed(2)).join(', ')}); this build's cpu / the baseline's ${median(ours).toFixed(2)}x (rounds ${ours.map((r) => r.toFixed(2)).join(', ')})`,
      );
    }
    console.log(`  load average before ${loadBefore}, after ${loadAverage()} (2 cores, shared)`);
    console.log(JSON.stringify(figures));
    return figures;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await watchVsBatchBench();
}

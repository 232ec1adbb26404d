// V8 flags for the CLI process, measured: `flowdeck watch DIR --once` (the built CLI, a fresh
// data folder and a fresh instant-job local demo each run, as bench/watch-vs-batch.ts runs it) with
// each candidate set of node flags beside the same CLI with none, rounds rotating which goes first.
// A flag that saves start-up but slows steady work shows at the larger size, so give two sizes.
//   npx tsx bench/v8-flags.ts [images,images...] [rounds] ["--flag --flag" ...]   (needs `npm run build`)
// Defaults: 200,1000 images, 3 rounds, and the sets below. CPU is the whole process tree's (GNU
// time: the main thread, V8's compiler and GC threads, libuv's pool); the demo's is in none.
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, inWorkDir, loadAverage, median, requireBuiltCli, watchOnceArgs } from './support/cli-bench';
import { distinctPng } from './support/images';
import { measureCommand, startDemoChild, type MeasuredRun } from './support/processes';

const SIZES = (process.argv[2] ?? '200,1000').split(',').map((n) => Math.max(1, Number(n)));
const ROUNDS = Math.max(1, Number(process.argv[3] ?? 3));
const CANDIDATES = process.argv.length > 4 ? process.argv.slice(4) : ['--single-threaded-gc', '--max-semi-space-size=32', '--max-opt=1', '--max-lazy'];
const SETS: string[][] = [[], ...CANDIDATES.map((set) => set.split(' ').filter(Boolean))];
const CONCURRENCY = 8;

const WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'bench/flags' } },
};

async function watchOnce(work: string, images: string, flags: string[], tag: string): Promise<MeasuredRun> {
  const dir = join(work, tag);
  const inDir = join(dir, 'in');
  const dataDir = join(dir, 'data');
  cpSync(images, inDir, { recursive: true });
  mkdirSync(dataDir);
  const workflowPath = join(dir, 'workflow.json');
  writeFileSync(workflowPath, JSON.stringify(WORKFLOW));
  const demo = await startDemoChild('local');
  try {
    const args = [...flags, ...watchOnceArgs(CLI, inDir, workflowPath, demo.url, ['--out', join(dir, 'out'), '--concurrency', String(CONCURRENCY), '--json'])];
    return await measureCommand(process.execPath, args, { env: { ...process.env, FLOWDECK_DATA_DIR: dataDir }, quiet: true });
  } finally {
    await demo.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const label = (flags: string[]): string => (flags.length === 0 ? '(none)' : flags.join(' '));

requireBuiltCli();
await inWorkDir('flowdeck-v8-flags-', async (work) => {
  for (const size of SIZES) {
    const images = join(work, `images-${size}`);
    mkdirSync(images);
    for (let i = 0; i < size; i += 1) writeFileSync(join(images, `img-${String(i).padStart(5, '0')}.png`), distinctPng(i, 64));
    const runs = SETS.map(() => [] as MeasuredRun[]);
    const loadBefore = loadAverage();
    for (let round = 0; round < ROUNDS; round += 1) {
      // Rotate the order, so no set always runs first (or last) in a round.
      for (let k = 0; k < SETS.length; k += 1) {
        const s = (k + round) % SETS.length;
        runs[s]!.push(await watchOnce(work, images, SETS[s]!, `r${round}-s${s}`));
      }
      const line = SETS.map((flags, s) => `${label(flags)} ${runs[s]![round]!.cpuSeconds.toFixed(2)} s cpu`).join('; ');
      console.log(`  ${size} images, round ${round + 1}: ${line} (load ${loadAverage()})`);
    }
    const base = runs[0]!;
    console.log(
      `${size} images at concurrency ${CONCURRENCY}, ${ROUNDS} rotating rounds, load before ${loadBefore}, after ${loadAverage()} (2 cores, shared):`,
    );
    for (let s = 0; s < SETS.length; s += 1) {
      const cpu = runs[s]!.map((r) => r.cpuSeconds);
      const wall = runs[s]!.map((r) => r.seconds);
      const cpuRatios = cpu.map((c, i) => c / base[i]!.cpuSeconds);
      const wallRatios = wall.map((w, i) => w / base[i]!.seconds);
      console.log(
        `  ${label(SETS[s]!).padEnd(36)} cpu median ${median(cpu).toFixed(2)} s, wall ${median(wall).toFixed(2)} s, peak RSS ${median(runs[s]!.map((r) => r.maxRssMb)).toFixed(0)} MB` +
          (s === 0
            ? ''
            : `; / none: cpu ${median(cpuRatios).toFixed(2)}x (${cpuRatios.map((r) => r.toFixed(2)).join(', ')}), wall ${median(wallRatios).toFixed(2)}x (${wallRatios.map((r) => r.toFixed(2)).join(', ')})`),
      );
    }
  }
});

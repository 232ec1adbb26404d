// The CLI's own start-up, in CPU: `flowdeck watch EMPTY --once` (a folder with no images, against
// a local demo service: settings, store, connection, events socket, the journal's first reading,
// and exit) and `flowdeck help`, beside the same start of the SDK batch client
// (bench/sdk-batch-client.ts on an empty folder: @saintno/comfyui-sdk's init, its socket) and
// `node -e ""` (node's own start, the floor of any Node CLI). Each run is a fresh process timed by
// GNU time (user + system of the whole process, every thread); every watch run gets a fresh data
// folder, as each round of bench/watch-vs-batch.ts does. Sides alternate in order run by run.
//   npx tsx bench/cli-start.ts [runs]              (needs `npx electron-vite build` first; default 10)
//   FLOWDECK_BENCH_BASELINE_CLI=PATH ...           also an earlier build's cli.js, side by side
//   FLOWDECK_BENCH_CPU_PROF=DIR ...                every CLI run under node --cpu-prof
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASELINE_CLI, bundleClient, CLI, cpuProfileArgs, inWorkDir, loadAverage, median, requireBuiltCli, watchOnceArgs } from './support/cli-bench';
import { measureCommand, startDemoChild } from './support/processes';

const RUNS = Math.max(1, Number(process.argv[2] ?? 10));

const WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'bench/start' } },
};

interface Side {
  label: string;
  /** One run: its CPU seconds. */
  run: (index: number) => Promise<number>;
}

await inWorkDir('flowdeck-bench-cli-start-', async (work) => {
  requireBuiltCli();
  const loadBefore = loadAverage();
  const empty = join(work, 'empty');
  mkdirSync(empty);
  const workflowPath = join(work, 'workflow.json');
  writeFileSync(workflowPath, JSON.stringify(WORKFLOW));
  const sdkClient = await bundleClient(work, 'sdk-batch-client');
  const demo = await startDemoChild('local');
  try {
    const cpu = async (args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> =>
      (await measureCommand(process.execPath, args, { env, quiet: true })).cpuSeconds;
    const watchOnce = (cli: string, name: string) => async (index: number) => {
      const dataDir = join(work, `data-${name}-${index}`);
      try {
        return await cpu([...cpuProfileArgs(`start-watch-${name}-${index}`), ...watchOnceArgs(cli, empty, workflowPath, demo.url)], {
          ...process.env,
          FLOWDECK_DATA_DIR: dataDir,
        });
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
        rmSync(join(empty, 'output'), { recursive: true, force: true });
      }
    };
    const help = (cli: string, name: string) => (index: number) => cpu([...cpuProfileArgs(`start-help-${name}-${index}`), cli, 'help']);
    const sides: Side[] = [
      { label: 'watch --once, empty folder (this build)', run: watchOnce(CLI, 'this') },
      ...(BASELINE_CLI ? [{ label: 'watch --once, empty folder (baseline)', run: watchOnce(BASELINE_CLI, 'baseline') }] : []),
      { label: 'sdk client, empty folder', run: (i) => cpu([sdkClient, demo.url, empty, join(work, `sdk-out-${i}`), workflowPath, '1.image', '8']) },
      { label: 'help (this build)', run: help(CLI, 'this') },
      ...(BASELINE_CLI ? [{ label: 'help (baseline)', run: help(BASELINE_CLI, 'baseline') }] : []),
      { label: 'node -e ""', run: () => cpu(['-e', '']) },
    ];
    const results = new Map<string, number[]>(sides.map((s) => [s.label, []]));
    for (let index = 0; index < RUNS; index += 1) {
      const order = index % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) results.get(side.label)!.push(await side.run(index));
    }
    const med = (label: string): number => median(results.get(label)!);
    console.log(`CLI start-up, CPU seconds (user + system), median of ${RUNS} runs each, sides alternating:`);
    for (const side of sides) {
      const xs = results.get(side.label)!;
      console.log(`  ${side.label.padEnd(42)} ${med(side.label).toFixed(3)} s  (min ${Math.min(...xs).toFixed(2)}, max ${Math.max(...xs).toFixed(2)})`);
    }
    const watch = med('watch --once, empty folder (this build)');
    console.log(`  watch --once / sdk client start: ${(watch / med('sdk client, empty folder')).toFixed(2)}x`);
    if (BASELINE_CLI) {
      console.log(
        `  this build / baseline: watch --once ${(watch / med('watch --once, empty folder (baseline)')).toFixed(2)}x, help ${(med('help (this build)') / med('help (baseline)')).toFixed(2)}x`,
      );
      console.log(`  baseline: ${BASELINE_CLI}`);
    }
    console.log(`  load average before ${loadBefore}, after ${loadAverage()} (2 cores, shared)`);
  } finally {
    await demo.stop();
  }
});

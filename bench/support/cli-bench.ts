// What the benchmarks of the built CLI against a plain client share: where the CLI is, node's CPU
// profile flags (FLOWDECK_BENCH_CPU_PROF=DIR), a work folder removed afterwards, rounds that
// alternate which side goes first, the figures' median and the machine's load, and the plain
// clients bundled as the CLI is.
//   FLOWDECK_BENCH_CLI=PATH           measure that cli.js instead of out/main/cli.js
//   FLOWDECK_BENCH_BASELINE_CLI=PATH  also run an earlier build's cli.js every round, so before and
//                                     after figures come from one run under the same load
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

export const CLI = process.env.FLOWDECK_BENCH_CLI ? resolve(process.env.FLOWDECK_BENCH_CLI) : resolve(import.meta.dirname, '../../out/main/cli.js');
/** An earlier build's cli.js to run beside CLI every round; null when not asked for. */
export const BASELINE_CLI = process.env.FLOWDECK_BENCH_BASELINE_CLI ? resolve(process.env.FLOWDECK_BENCH_BASELINE_CLI) : null;
const CPU_PROF_DIR = process.env.FLOWDECK_BENCH_CPU_PROF;

export function requireBuiltCli(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first.`);
}

/** Node flags that write `name`.cpuprofile into FLOWDECK_BENCH_CPU_PROF; none when it is unset. */
export function cpuProfileArgs(name: string): string[] {
  return CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
}

/** The 1, 5 and 15 minute load averages, as printed beside the figures (the machine is shared). */
export const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `bench` in a fresh temp folder (named from `prefix`), removed afterwards however it ends. */
export async function inWorkDir<T>(prefix: string, bench: (work: string) => Promise<T>): Promise<T> {
  const work = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await bench(work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * `rounds` rounds of both sides, alternating which goes first, so neither always finds the page
 * cache (or the server) in the state the other left; `report` after each round.
 */
export async function alternateRounds(
  rounds: number,
  ours: (round: number) => Promise<void>,
  theirs: (round: number) => Promise<void>,
  report: (round: number) => void,
): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    if (round % 2 === 0) {
      await ours(round);
      await theirs(round);
    } else {
      await theirs(round);
      await ours(round);
    }
    report(round);
  }
}

/** A plain client (bench/`name`.ts) as one plain-JS file, so it starts as the built CLI does (no tsx in its time). */
export async function bundleClient(work: string, name: 'batch-client' | 'lean-client' | 'sdk-batch-client'): Promise<string> {
  const outfile = join(work, `${name}.mjs`);
  await build({
    entryPoints: [join(import.meta.dirname, '..', `${name}.ts`)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // ws loads these native speed-ups when installed; it works without them.
    external: ['bufferutil', 'utf-8-validate'],
    logLevel: 'warning',
    // ws is CommonJS and requires node's built-ins: give the ES module bundle a require.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  return outfile;
}

/** `flowdeck watch DIR --once` on a local server with the benches' workflow bound at 1.image, plus `extra` flags. */
export function watchOnceArgs(cli: string, dir: string, workflowPath: string, serverUrl: string, extra: string[] = []): string[] {
  return [cli, 'watch', dir, '--workflow', workflowPath, '--bind', '1.image', '--server', serverUrl, '--local', '--once', ...extra];
}

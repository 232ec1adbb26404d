// Issue 14, "Many servers, one queue": the same images through `flowdeck watch DIR --once` (the
// built CLI, a fresh data folder each run) on one server and on a pool of three (--server x3),
// alternating which goes first; then the pool again with one server killed (SIGKILL) a third of
// the way through. Every server is a demo service (local flavour) in its own process whose jobs
// take a fixed time (FixedDelay, tests/support/ledger-demo.ts) and which notes each prompt it
// accepts, starts and finishes in a ledger file, so its work can be counted even after the kill.
//   npx tsx bench/pool.ts [images] [rounds]      (needs `npm run build` first)
// --concurrency 2 per server: a server runs one job at a time, so with 2 the next job is already
// queued there when one ends and the server never waits for the client's upload/submit round trip;
// the figures then compare servers kept busy (the pool's spreading), not the idle gaps of 1.
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, inWorkDir, loadAverage, median, requireBuiltCli } from './support/cli-bench';
import { distinctPng } from './support/images';
import { startDemoChild, type DemoChild } from './support/processes';
import { outputsPerInput, runCliEvents, sameServer, type CliEvent } from '../tests/support/cli-events';
import { fixedDelayWorkflow, readLedger, type Ledger } from '../tests/support/ledger-demo';

const IMAGES = Math.max(3, Number(process.argv[2] ?? 300));
const ROUNDS = Math.max(1, Number(process.argv[3] ?? 2));
const SERVERS = 3;
const JOB_MS = 150;
const CONCURRENCY = 2;
/** Short, so the killed server's jobs move on within the run (defaults: 30 s and 60 s). */
const UNREACHABLE_AFTER_S = 5;
const RECONCILE_AFTER_S = 10;
const RUN_TIMEOUT_MS = 15 * 60_000;

interface Server {
  demo: DemoChild;
  ledgerPath: string;
}

interface WatchResult {
  code: number | null;
  seconds: number;
  events: CliEvent[];
  stderr: string;
  /** Per server (in --server order): the done events naming it, and its ledger. */
  doneByServer: number[];
  ledgers: Ledger[];
  /** Inputs with exactly one output, and the largest number of outputs of one input. */
  inputsOnce: number;
  maxOutputsPerInput: number;
  distinctFilesDone: number;
  killedAtSeconds: number | null;
  /** Files per second between the first and the last `done` (the start-up and the last job's tail aside). */
  steadyFilesPerSecond: number;
  /** Seconds from the command's start to its first `done`. */
  firstDoneSeconds: number;
}

async function startServers(dir: string, count: number): Promise<Server[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const ledgerPath = join(dir, `ledger-${i}.txt`);
      return { demo: await startDemoChild('local', { ledger: ledgerPath }), ledgerPath };
    }),
  );
}

/**
 * One `flowdeck watch --once` over `images` on `count` fresh servers (fresh: the demo numbers its
 * outputs by listing its output folder, so a reused one would charge a run for the one before).
 * With `killAfterDone`, server 1 (the second) is killed with SIGKILL when that many files are done.
 */
async function watchRun(work: string, images: string, name: string, count: number, killAfterDone: number | null): Promise<WatchResult> {
  const dir = join(work, name);
  const inDir = join(dir, 'in');
  const outDir = join(dir, 'out');
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  cpSync(images, inDir, { recursive: true });
  const workflowPath = join(dir, 'workflow.json');
  writeFileSync(workflowPath, JSON.stringify(fixedDelayWorkflow('bench/pool', JOB_MS)));
  const servers = await startServers(dir, count);
  try {
    const args = [
      'watch',
      inDir,
      '--workflow',
      workflowPath,
      '--bind',
      '1.image',
      ...servers.flatMap((s) => ['--server', s.demo.url]),
      '--local',
      '--out',
      outDir,
      '--concurrency',
      String(CONCURRENCY),
      '--once',
      '--json',
    ];
    const env = {
      FLOWDECK_DATA_DIR: dataDir,
      FLOWDECK_UNREACHABLE_AFTER: String(UNREACHABLE_AFTER_S),
      FLOWDECK_POOL_RECONCILE_AFTER: String(RECONCILE_AFTER_S),
    };
    const doneAt: number[] = [];
    let killedAtSeconds: number | null = null;
    const run = await runCliEvents(
      CLI,
      args,
      env,
      (event, at) => {
        if (event.event !== 'done') return;
        doneAt.push(at);
        if (killAfterDone !== null && doneAt.length === killAfterDone) {
          killedAtSeconds = at;
          void servers[1]!.demo.kill();
        }
      },
      RUN_TIMEOUT_MS,
    );
    const doneEvents = run.events.filter((e) => e.event === 'done');
    const perInput = outputsPerInput(outDir, readdirSync(inDir));
    return {
      code: run.code,
      seconds: run.seconds,
      events: run.events,
      stderr: run.stderr,
      doneByServer: servers.map((s) => doneEvents.filter((e) => typeof e.server === 'string' && sameServer(e.server, s.demo.url)).length),
      ledgers: servers.map((s) => readLedger(s.ledgerPath)),
      inputsOnce: [...perInput.values()].filter((n) => n === 1).length,
      maxOutputsPerInput: Math.max(...perInput.values()),
      distinctFilesDone: new Set(doneEvents.map((e) => e.file)).size,
      killedAtSeconds,
      firstDoneSeconds: doneAt[0] ?? Number.NaN,
      steadyFilesPerSecond: doneAt.length > 1 ? (doneAt.length - 1) / (doneAt[doneAt.length - 1]! - doneAt[0]!) : 0,
    };
  } finally {
    await Promise.all(servers.map((s) => s.demo.stop()));
  }
}

function requireAllDone(result: WatchResult, what: string): void {
  if (result.code !== 0 || result.inputsOnce !== IMAGES) {
    const counts = Object.entries(countBy(result.events.map((e) => e.event)));
    throw new Error(
      `${what}: exit ${result.code}, ${result.inputsOnce} of ${IMAGES} inputs with exactly one output (events: ${counts.map(([k, v]) => `${k} ${v}`).join(', ')})\n${result.stderr.slice(-3000)}`,
    );
  }
}

function countBy(xs: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}

const perServer = (xs: number[]): string => xs.map((n, i) => `#${i + 1} ${n}`).join(', ');

export async function poolBench(): Promise<Record<string, number | boolean>> {
  requireBuiltCli();
  return inWorkDir('flowdeck-bench-pool-', async (work) => {
    const loadBefore = loadAverage();
    const images = join(work, 'images');
    mkdirSync(images);
    for (let i = 0; i < IMAGES; i += 1) writeFileSync(join(images, `img-${String(i).padStart(4, '0')}.png`), distinctPng(i, 64));
    console.log(
      `${IMAGES} images, jobs of ${JOB_MS} ms (FixedDelay, one job at a time per server), --concurrency ${CONCURRENCY} per server, FLOWDECK_UNREACHABLE_AFTER=${UNREACHABLE_AFTER_S} FLOWDECK_POOL_RECONCILE_AFTER=${RECONCILE_AFTER_S}:`,
    );

    const one: WatchResult[] = [];
    const pool: WatchResult[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const runOne = async (): Promise<void> => void one.push(await watchRun(work, images, `one-${round}`, 1, null));
      const runPool = async (): Promise<void> => void pool.push(await watchRun(work, images, `pool-${round}`, SERVERS, null));
      if (round % 2 === 0) {
        await runOne();
        await runPool();
      } else {
        await runPool();
        await runOne();
      }
      const o = one[round]!;
      const p = pool[round]!;
      requireAllDone(o, 'one server');
      requireAllDone(p, 'pool');
      console.log(
        `  round ${round + 1} (${round % 2 === 0 ? 'one first' : 'pool first'}): one server ${o.seconds.toFixed(2)} s (${(IMAGES / o.seconds).toFixed(1)} files/s); ` +
          `pool of ${SERVERS} ${p.seconds.toFixed(2)} s (${(IMAGES / p.seconds).toFixed(1)} files/s): ${(o.seconds / p.seconds).toFixed(2)}x; ` +
          `between first and last done ${o.steadyFilesPerSecond.toFixed(1)} vs ${p.steadyFilesPerSecond.toFixed(1)} files/s: ${(p.steadyFilesPerSecond / o.steadyFilesPerSecond).toFixed(2)}x; ` +
          `first done at ${o.firstDoneSeconds.toFixed(2)} vs ${p.firstDoneSeconds.toFixed(2)} s; ` +
          `files per server: done events ${perServer(p.doneByServer)}, ledgers ${perServer(p.ledgers.map((l) => l.done.length))}`,
      );
    }
    const ratios = pool.map((p, i) => one[i]!.seconds / p.seconds);
    const steadyRatios = pool.map((p, i) => p.steadyFilesPerSecond / one[i]!.steadyFilesPerSecond);
    const everyServerUsed = pool.every((p) => p.ledgers.every((l) => l.done.length > 0));

    const killAfter = Math.floor(IMAGES / 3);
    const killed = await watchRun(work, images, 'pool-kill', SERVERS, killAfter);
    const receivedPerServer = killed.ledgers.map((l) => l.received.length);
    const unfinishedOnKilled = killed.ledgers[1]!.received.filter((id) => !killed.ledgers[1]!.done.includes(id)).length;
    console.log(`  steady state would be ${(1000 / JOB_MS).toFixed(1)} files/s per server (${((SERVERS * 1000) / JOB_MS).toFixed(1)} for the pool)`);
    console.log(
      `  throughput ratio pool/one, whole runs (start-up included): median ${median(ratios).toFixed(2)}x (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}; target >= 2.7x); every server ran files: ${everyServerUsed}`,
    );
    console.log(
      `  throughput ratio pool/one, first to last done: median ${median(steadyRatios).toFixed(2)}x (rounds ${steadyRatios.map((r) => r.toFixed(2)).join(', ')})`,
    );
    console.log(
      `  pool with server #2 killed (SIGKILL) after ${killAfter} done (at ${killed.killedAtSeconds?.toFixed(2) ?? '-'} s): exit ${killed.code}, ${killed.seconds.toFixed(2)} s; ` +
        `distinct inputs done ${killed.distinctFilesDone} of ${IMAGES}, inputs with exactly one output ${killed.inputsOnce}, most outputs of one input ${killed.maxOutputsPerInput}`,
    );
    console.log(
      `    per server: prompts received ${perServer(receivedPerServer)}; finished (ledger) ${perServer(killed.ledgers.map((l) => l.done.length))}; done events ${perServer(killed.doneByServer)}; ` +
        `#2 had ${unfinishedOnKilled} received and not finished when killed, and ${killed.ledgers[1]!.done.length - killed.doneByServer[1]!} finished but not delivered from it (both run again elsewhere)`,
    );
    console.log(`  load average before ${loadBefore}, after ${loadAverage()} (2 cores, shared)`);
    const figures = {
      images: IMAGES,
      jobMs: JOB_MS,
      concurrencyPerServer: CONCURRENCY,
      oneServerMedianS: median(one.map((o) => o.seconds)),
      poolMedianS: median(pool.map((p) => p.seconds)),
      ratioMedian: median(ratios),
      steadyRatioMedian: median(steadyRatios),
      everyServerUsed,
      killedRunS: killed.seconds,
      killedRunExitCode: killed.code ?? -1,
      killedRunDistinctDone: killed.distinctFilesDone,
      killedRunInputsOnce: killed.inputsOnce,
      killedRunMaxOutputsPerInput: killed.maxOutputsPerInput,
      unreachableAfterS: UNREACHABLE_AFTER_S,
      reconcileAfterS: RECONCILE_AFTER_S,
    };
    console.log(JSON.stringify(figures));
    return figures;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await poolBench();
}

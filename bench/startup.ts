// Start-up with a big data folder: from starting the core to the Run view answering input, in the
// built browser harness (out/main/harness.js: the app core in plain Node, the real renderer in
// Chromium). The data folder is seeded once (bench/support/seed-store.ts: 100,000 library items,
// 10,000 finished jobs in the job journal, 20 saved hot folders) and reused by every round, after
// one warm-up round that is not counted (the first start of a folder makes the demo profile).
// Chromium is launched before the clock starts, as an Electron window would be made while the
// core starts. Each round prints, from spawning the core:
//   core ready   - the harness printed its address (node start, modules, core.start(): store,
//                  migrations, library, hot folders, the demo service, the server);
//   first screen - the page loaded and the Run view's heading is visible;
//   input        - a sample workflow opened by a click and a typed key reached its prompt field;
//   connected    - the connection indicator says connected (reported, not part of the target);
// and the core's CPU seconds by then. Median and worst over the rounds. Target: input <= 1.5 s.
//
//   npx electron-vite build && npx tsx bench/startup.ts [--rounds 5] [--items 100000] [--jobs 10000] [--folders 20]
//   --cpu-prof DIR: the core runs under node --cpu-prof (profile written to DIR at exit).
//   --trace FILE: a Chromium trace of the page in the first counted round of this build, from
//   loading the page to the typed key (bench/support/trace-top.ts reads it).
//   --compare DIR: also start another build's harness (DIR/out/main/harness.js, e.g. an older
//   commit built in /tmp) in every round, the two in turns (order alternating), and print both
//   with their ratio: on a loaded machine only figures taken side by side compare.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Browser } from '@playwright/test';
import { launchBenchBrowser, newBenchPage } from './support/browser';
import { cpuSecondsOf, loadAverage } from './support/proc-cpu';
import { seedDataDir } from './support/seed-store';
import { HARNESS_ENTRY } from '../e2e/fixtures/harness';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    items: { type: 'string', default: '100000' },
    jobs: { type: 'string', default: '10000' },
    folders: { type: 'string', default: '20' },
    'cpu-prof': { type: 'string' },
    compare: { type: 'string' },
    trace: { type: 'string' },
  },
});
const ROUNDS = Number(values.rounds);
const TARGET_MS = 1500;

interface Round {
  coreReady: number;
  firstScreen: number;
  input: number;
  connected: number;
  coreCpu: number;
}

/** Spawns the harness on `dataDir`; resolves with its pid, address and when it printed it (ms after spawn). */
function startCore(entry: string, dataDir: string, t0: number): Promise<{ pid: number; url: string; readyAt: number; stop(): Promise<void> }> {
  const prof = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof']] : [];
  const child = spawn(process.execPath, [...prof, entry, '--demo-time-scale', '0.05'], {
    cwd: join(entry, '../../..'),
    env: { ...process.env, FLOWDECK_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  const stop = (): Promise<void> =>
    new Promise((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve({ pid: child.pid!, url: out.slice(0, newline).trim(), readyAt: performance.now() - t0, stop });
    });
    child.once('exit', (code) => reject(new Error(`the harness exited (${code}) before printing its address:\n${log}`)));
  });
}

function stat(list: number[]): { median: number; worst: number } {
  const sorted = [...list].sort((a, b) => a - b);
  return { median: sorted[Math.floor((sorted.length - 1) / 2)]!, worst: sorted[sorted.length - 1]! };
}

/** One start: a new page, the core spawned, the times from spawning it. */
async function measure(browser: Browser, entry: string, dataDir: string, trace?: string): Promise<Round> {
  const page = await newBenchPage(browser);
  const t0 = performance.now();
  const core = await startCore(entry, dataDir, t0);
  try {
    if (trace) {
      const categories = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'v8', 'toplevel', 'loading'];
      await browser.startTracing(page, { path: trace, categories });
    }
    await page.goto(core.url);
    await page.getByRole('heading', { name: 'Run a workflow' }).waitFor({ timeout: 30_000 });
    const firstScreen = performance.now() - t0;
    await page.getByRole('button', { name: 'Open sample: Text to image' }).click();
    const prompt = page.getByRole('textbox', { name: 'Prompt', exact: true });
    await prompt.focus({ timeout: 30_000 });
    await page.keyboard.press('End');
    await page.keyboard.type('!');
    await page.waitForFunction(
      () => ((globalThis as unknown as { document: { activeElement: { value?: string } | null } }).document.activeElement?.value ?? '').endsWith('!'),
      null,
      { polling: 'raf', timeout: 30_000 },
    );
    const input = performance.now() - t0;
    const coreCpu = cpuSecondsOf(core.pid);
    if (trace) await browser.stopTracing();
    await page
      .getByRole('status', { name: 'Connection' })
      .filter({ hasText: /connected/i })
      .waitFor({ timeout: 30_000 });
    return { coreReady: core.readyAt, firstScreen, input, connected: performance.now() - t0, coreCpu };
  } finally {
    await page.close();
    await core.stop();
  }
}

async function main(): Promise<void> {
  if (!existsSync(HARNESS_ENTRY)) throw new Error(`${HARNESS_ENTRY} is missing: run \`npx electron-vite build\` first.`);
  const plan = { items: Number(values.items), jobs: Number(values.jobs), hotFolders: Number(values.folders) };
  const dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-bench-startup-'));
  const browser = await launchBenchBrowser();
  try {
    const seeded = performance.now();
    await seedDataDir(dataDir, plan);
    console.log(
      `start-up: ${plan.items.toLocaleString('en')} library items, ${plan.jobs.toLocaleString('en')} journaled jobs, ${plan.hotFolders} hot folders ` +
        `(seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s); ${ROUNDS} rounds after a warm-up; load ${loadAverage()}`,
    );
    const builds = [{ name: 'this build', entry: HARNESS_ENTRY }];
    if (values.compare) builds.push({ name: `compare (${values.compare})`, entry: join(values.compare, 'out/main/harness.js') });
    const rounds = new Map<string, Round[]>(builds.map((b) => [b.name, []]));
    for (let n = 0; n <= ROUNDS; n += 1) {
      // The builds in turns, the order alternating, so neither always runs on a warmer machine.
      for (const build of n % 2 === 0 ? builds : [...builds].reverse()) {
        const traced = n === 1 && build.entry === HARNESS_ENTRY ? values.trace : undefined;
        const round = await measure(browser, build.entry, dataDir, traced);
        if (n > 0) rounds.get(build.name)!.push(round);
        console.log(
          `  ${n === 0 ? 'warm-up' : `round ${n}`} ${build.name}: core ready ${round.coreReady.toFixed(0)} ms, first screen ${round.firstScreen.toFixed(0)} ms, ` +
            `input answered ${round.input.toFixed(0)} ms, connected ${round.connected.toFixed(0)} ms; core CPU by input ${(round.coreCpu * 1000).toFixed(0)} ms (load ${loadAverage()})`,
        );
      }
    }
    for (const [name, list] of rounds) {
      const show = (what: string, pick: (r: Round) => number): string => {
        const { median, worst } = stat(list.map(pick));
        return `${what} median ${median.toFixed(0)} ms, worst ${worst.toFixed(0)} ms`;
      };
      const input = stat(list.map((r) => r.input));
      console.log(
        `${name}: ${show('core ready', (r) => r.coreReady)}; ${show('first screen', (r) => r.firstScreen)}; ${show('input answered', (r) => r.input)}; ` +
          `${show('connected', (r) => r.connected)}; ${show('core CPU by input', (r) => r.coreCpu * 1000)}; ` +
          `page share (input - core ready) median ${stat(list.map((r) => r.input - r.coreReady)).median.toFixed(0)} ms; ` +
          `target input <= ${TARGET_MS} ms: ${input.worst <= TARGET_MS ? 'met (worst)' : input.median <= TARGET_MS ? 'met (median), not worst' : 'NOT met'}`,
      );
    }
    if (builds.length === 2) {
      const [mine, other] = builds.map((b) => rounds.get(b.name)!);
      const ratio = (pick: (r: Round) => number): string => (stat(mine!.map(pick)).median / stat(other!.map(pick)).median).toFixed(2);
      console.log(
        `this build / compare, medians: core ready ${ratio((r) => r.coreReady)}x, first screen ${ratio((r) => r.firstScreen)}x, ` +
          `input answered ${ratio((r) => r.input)}x, core CPU ${ratio((r) => r.coreCpu)}x; load ${loadAverage()}`,
      );
    }
  } finally {
    await browser.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});

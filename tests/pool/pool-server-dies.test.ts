// A pool of three servers behind one hot folder (`flowdeck watch --once`, --server x3, the built
// CLI) loses one of them to SIGKILL while it runs a job: the pool must take it out of rotation, move
// the work it had (after FLOWDECK_POOL_RECONCILE_AFTER, counted from when it stopped answering) to
// the others, and end with exit 0 and every input delivered exactly once. The servers are demo
// services in their own processes (bench/support/demo-child.ts) whose jobs take a fixed 400 ms and
// which note each prompt they accept and finish in a ledger (tests/support/ledger-demo.ts), so the
// test knows the killed server had unfinished work when it died.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { distinctPng } from '../../bench/support/images';
import { startDemoChild, type DemoChild } from '../../bench/support/processes';
import { CLI } from '../support/cli';
import { outputsPerInput, runCliEvents, sameServer } from '../support/cli-events';
import { fixedDelayWorkflow, readLedger } from '../support/ledger-demo';

const IMAGES = 12;
const SERVERS = 3;
const JOB_MS = 400;
/** From this many files done on, the first server seen with a job under way is killed. */
const KILL_AFTER_DONE = 3;

let work: string;
const servers: { demo: DemoChild; ledger: string }[] = [];

beforeAll(async () => {
  expect(existsSync(CLI)).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-pool-dies-'));
  for (let i = 0; i < SERVERS; i += 1) {
    const ledger = join(work, `ledger-${i}.txt`);
    servers.push({ demo: await startDemoChild('local', { ledger }), ledger });
  }
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.demo.kill()));
  rmSync(work, { recursive: true, force: true });
});

/** A server that has accepted a prompt it has not finished (the ledger is written before answers go out). */
function serverWithWorkUnderWay(): number | null {
  const i = servers.findIndex((s) => {
    const ledger = readLedger(s.ledger);
    return ledger.received.some((id) => !ledger.done.includes(id));
  });
  return i < 0 ? null : i;
}

it('finishes every file exactly once, exit 0, when one server of three is killed mid-job', { timeout: 60_000 }, async () => {
  const inDir = join(work, 'in');
  const outDir = join(work, 'out');
  mkdirSync(inDir);
  for (let i = 0; i < IMAGES; i += 1) writeFileSync(join(inDir, `img-${String(i).padStart(2, '0')}.png`), distinctPng(i, 32));
  const workflow = join(work, 'workflow.json');
  writeFileSync(workflow, JSON.stringify(fixedDelayWorkflow('pool/dies', JOB_MS)));

  let done = 0;
  let victim: number | null = null;
  // From the third file done on, the ledgers are read every 10 ms until a server is caught with a
  // job under way (a done event alone can find every server between jobs, under load several in a row).
  let hunting: NodeJS.Timeout | null = null;
  const hunt = (): void => {
    if (victim !== null) return;
    victim = serverWithWorkUnderWay();
    if (victim === null) return;
    if (hunting) clearInterval(hunting);
    void servers[victim]!.demo.kill();
  };
  const run = await runCliEvents(
    CLI,
    [
      'watch',
      inDir,
      '--workflow',
      workflow,
      '--bind',
      '1.image',
      ...servers.flatMap((s) => ['--server', s.demo.url]),
      '--local',
      '--out',
      outDir,
      '--concurrency',
      '1',
      '--once',
      '--json',
    ],
    { FLOWDECK_DATA_DIR: join(work, 'data'), FLOWDECK_UNREACHABLE_AFTER: '2', FLOWDECK_POOL_RECONCILE_AFTER: '4', FLOWDECK_POOL_PROBE_INTERVAL: '1' },
    (event) => {
      if (event.event !== 'done') return;
      done += 1;
      if (done < KILL_AFTER_DONE || victim !== null || hunting) return;
      hunt();
      if (victim === null) hunting = setInterval(hunt, 10);
    },
    50_000,
  );
  if (hunting) clearInterval(hunting);

  // The kill cut a job short: the pool had work to move, not just a server to forget.
  expect(victim, 'no server had a job under way after the third file was done').not.toBeNull();

  expect(run.code, run.stderr).toBe(0);
  const doneEvents = run.events.filter((e) => e.event === 'done');
  const files = doneEvents.map((e) => e.file);
  expect(new Set(files).size, JSON.stringify(run.events)).toBe(IMAGES);
  expect(files.length).toBe(IMAGES);
  const perInput = outputsPerInput(outDir, readdirSync(inDir));
  expect(
    [...perInput.entries()].filter(([, n]) => n !== 1),
    'inputs without exactly one output',
  ).toEqual([]);

  const ranOn = new Set(doneEvents.map((e) => servers.findIndex((s) => typeof e.server === 'string' && sameServer(e.server, s.demo.url))));
  expect(ranOn.has(-1), `a done event names no server of the pool: ${JSON.stringify(doneEvents)}`).toBe(false);
  expect(ranOn.size).toBeGreaterThan(1);
  // Each done event's server is the one whose ledger finished that prompt.
  for (const e of doneEvents) {
    const i = servers.findIndex((s) => sameServer(String(e.server), s.demo.url));
    expect(readLedger(servers[i]!.ledger).done).toContain(e.prompt_id);
  }
});

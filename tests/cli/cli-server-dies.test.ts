// kill -9 of the server 5 s into a slow `run`: the CLI must give up after the documented time
// without answers (FLOWDECK_UNREACHABLE_AFTER, 3 s here; 30 s by default), exit 5, say that the
// server stopped answering and what the job was last known to be doing.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI } from '../support/cli';
import { slowWorkflow, startDemoProcess, type DemoProcess } from '../support/demo-process';
import { runMeasured } from '../support/hostile-server';

let work: string;
let demo: DemoProcess | null = null;

beforeAll(() => {
  expect(existsSync(CLI)).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-dies-'));
});

afterAll(async () => {
  await demo?.kill();
  rmSync(work, { recursive: true, force: true });
});

it('gives up with exit 5 and the last known state when the server dies mid-job', { timeout: 90_000 }, async () => {
  demo = await startDemoProcess();
  const { url } = demo;
  const wf = join(work, 'slow.json');
  writeFileSync(wf, slowWorkflow('dies'));
  setTimeout(() => void demo?.kill(), 5_000);
  const run = await runMeasured(
    CLI,
    ['run', wf, '--server', url, '--local', '--out', join(work, 'out'), '--json'],
    { FLOWDECK_DATA_DIR: join(work, 'data'), FLOWDECK_UNREACHABLE_AFTER: '3' },
    60_000,
  );
  expect(run.code, run.stderr).toBe(5);
  expect(run.stderr).toMatch(/the server stopped answering/i);
  expect(run.stderr).toMatch(/last known state: running/);
  expect(JSON.parse(run.stdout)).toMatchObject({ status: 'unknown' });
  // 5 s of work, then 3 s of failing polls (each poll retries for a few seconds at most).
  expect(run.ms).toBeLessThan(25_000);
});

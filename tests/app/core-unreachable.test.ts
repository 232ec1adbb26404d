// The app core when the server dies mid-job: the job becomes "unknown — server unreachable" (after
// FLOWDECK_UNREACHABLE_AFTER, 2 s here) instead of "running" forever, and "Check again"
// (jobs.checkAgain) asks the server anew once it is back: a restarted server that has forgotten
// the job settles it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JobSnapshotView } from '../../src/shared/ipc/contract';
import { CLI } from '../support/cli';
import { demoCoreInTemp, ok, type DemoCore } from '../support/demo-core';

let app: DemoCore;
let demo: ChildProcess | null = null;

/** The demo service as a child process (built CLI), so that it can be killed with SIGKILL. */
function startDemo(port = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'demo', '--local', '--time-scale', '1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
    demo = child;
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`the demo exited (${code}) before listening: ${out}`)));
  });
}

function killDemo(): Promise<void> {
  const child = demo;
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
const previous = process.env.FLOWDECK_UNREACHABLE_AFTER;

/** The job.update payloads the core has sent so far. */
function updates(): JobSnapshotView[] {
  return app.events.flatMap((event) => (event.name === 'job.update' ? [event.payload] : []));
}

function waitFor(test: (job: JobSnapshotView) => boolean, ms: number): Promise<JobSnapshotView> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      const hit = updates().find(test);
      if (hit) {
        clearInterval(timer);
        resolve(hit);
      } else if (Date.now() - started > ms) {
        clearInterval(timer);
        reject(new Error(`no matching job.update within ${ms} ms (last: ${JSON.stringify(updates().at(-1)?.phase)})`));
      }
    }, 50);
  });
}

beforeAll(async () => {
  process.env.FLOWDECK_UNREACHABLE_AFTER = '2';
  app = demoCoreInTemp('flowdeck-unreachable-');
  expect(existsSync(CLI)).toBe(true);
  await app.core.start();
});

afterAll(async () => {
  if (previous === undefined) delete process.env.FLOWDECK_UNREACHABLE_AFTER;
  else process.env.FLOWDECK_UNREACHABLE_AFTER = previous;
  await app?.close();
  await killDemo();
});

it('marks a job whose server died "unreachable", and Check again settles it once the server is back', { timeout: 60_000 }, async () => {
  const url = await startDemo();
  const port = Number(new URL(url).port);
  const { core } = app;
  await ok(core, 'profiles.save', { name: 'Local', kind: 'local', baseUrl: url, select: true });
  const workflowJson = JSON.stringify({
    '1': { class_type: 'DemoSampler', inputs: { prompt: 'slow', seed: 1, steps: 200, width: 64, height: 48, cfg: 7, sampler_name: 'euler', delay_ms: 400 } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'unreachable' } },
  });
  const { promptIds } = await ok(core, 'run.submit', { workflowJson });
  const promptId = promptIds[0]!;
  await waitFor((j) => j.promptId === promptId && j.phase === 'running', 15_000);

  await killDemo();
  const unknown = await waitFor((j) => j.promptId === promptId && !!j.unreachable, 20_000);
  expect(unknown.phase).toBe('running'); // the last known state, shown beside "unknown"
  const listed = await ok(core, 'jobs.list');
  expect(listed.jobs.find((j) => j.promptId === promptId)?.unreachable).toMatchObject({ reason: expect.any(String) });

  // Back on the same address, without the job (a restart forgets the queue): Check again settles it.
  await startDemo(port);
  const checked = await ok(core, 'jobs.checkAgain', { promptId });
  const settled = checked.phase === 'failed' ? checked : await waitFor((j) => j.promptId === promptId && j.phase === 'failed', 15_000);
  expect(settled.unreachable ?? null).toBeNull();
  expect(settled.status).toBe('lost');
});

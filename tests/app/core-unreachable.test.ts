// The app core when the server dies mid-job: the job becomes "unknown — server unreachable" (after
// FLOWDECK_UNREACHABLE_AFTER, 2 s here) instead of "running" forever, and "Check again"
// (jobs.checkAgain) asks the server anew once it is back: a restarted server that has forgotten
// the job settles it.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JobSnapshotView } from '@shared/ipc/contract';
import { CLI } from '../support/cli';
import { demoCoreInTemp, ok, type DemoCore } from '../support/demo-core';
import { slowWorkflow, startDemoProcess, type DemoProcess } from '../support/demo-process';

let app: DemoCore;
let demo: DemoProcess | null = null;

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
  await demo?.kill();
});

it('marks a job whose server died "unreachable", and Check again settles it once the server is back', { timeout: 60_000 }, async () => {
  demo = await startDemoProcess();
  const { url } = demo;
  const port = Number(new URL(url).port);
  const { core } = app;
  await ok(core, 'profiles.save', { name: 'Local', kind: 'local', baseUrl: url, select: true });
  const { promptIds } = await ok(core, 'run.submit', { workflowJson: slowWorkflow('unreachable') });
  const promptId = promptIds[0]!;
  await waitFor((j) => j.promptId === promptId && j.phase === 'running', 15_000);

  await demo.kill();
  const unknown = await waitFor((j) => j.promptId === promptId && !!j.unreachable, 20_000);
  expect(unknown.phase).toBe('running'); // the last known state, shown beside "unknown"
  const listed = await ok(core, 'jobs.list');
  expect(listed.jobs.find((j) => j.promptId === promptId)?.unreachable).toMatchObject({ reason: expect.any(String) });

  // Back on the same address, without the job (a restart forgets the queue): Check again settles it.
  demo = await startDemoProcess(port);
  const checked = await ok(core, 'jobs.checkAgain', { promptId });
  const settled = checked.phase === 'failed' ? checked : await waitFor((j) => j.promptId === promptId && j.phase === 'failed', 15_000);
  expect(settled.unreachable ?? null).toBeNull();
  expect(settled.status).toBe('lost');
});

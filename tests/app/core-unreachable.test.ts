// The app core when the server dies mid-job: the job becomes "unknown — server unreachable" (after
// FLOWDECK_UNREACHABLE_AFTER, 2 s here) instead of "running" forever, and "Check again"
// (jobs.checkAgain) asks the server anew once it is back: a restarted server that has forgotten
// the job settles it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JobSnapshotView } from '../../src/shared/ipc/contract';
import { createConnectFactory } from '../../src/main/app/connect';
import { createAppCore, type AppCore } from '../../src/main/app/core';
import { createDemoStarter } from '../../src/main/app/demo';
import { ConfSettingsStore } from '../../src/main/config/conf-settings';
import { SessionSecretStore } from '../../src/main/config/secrets';
import { CLI } from '../support/cli';

let dataDir: string;
let core: AppCore;
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
const updates: JobSnapshotView[] = [];
const previous = process.env.FLOWDECK_UNREACHABLE_AFTER;

async function ok<T>(answer: Promise<unknown>): Promise<T> {
  const envelope = (await answer) as { ok: boolean; value?: T; error?: { message: string } };
  if (!envelope.ok) throw new Error(envelope.error?.message ?? 'failed');
  return envelope.value as T;
}

function waitFor(test: (job: JobSnapshotView) => boolean, ms: number): Promise<JobSnapshotView> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      const hit = updates.find(test);
      if (hit) {
        clearInterval(timer);
        resolve(hit);
      } else if (Date.now() - started > ms) {
        clearInterval(timer);
        reject(new Error(`no matching job.update within ${ms} ms (last: ${JSON.stringify(updates.at(-1)?.phase)})`));
      }
    }, 50);
  });
}

beforeAll(async () => {
  process.env.FLOWDECK_UNREACHABLE_AFTER = '2';
  dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-unreachable-'));
  expect(existsSync(CLI)).toBe(true);
  core = createAppCore({
    settings: new ConfSettingsStore(dataDir),
    secrets: new SessionSecretStore(),
    dataDir,
    startDemo: createDemoStarter({ timeScale: 0.05 }),
    connect: createConnectFactory(),
    allowAnyPath: true,
    pollIntervalMs: 250,
  });
  core.onEvent((event) => {
    if (event.name === 'job.update') updates.push(event.payload as JobSnapshotView);
  });
  await core.start();
});

afterAll(async () => {
  if (previous === undefined) delete process.env.FLOWDECK_UNREACHABLE_AFTER;
  else process.env.FLOWDECK_UNREACHABLE_AFTER = previous;
  await core?.dispose();
  await killDemo();
  rmSync(dataDir, { recursive: true, force: true });
});

it('marks a job whose server died "unreachable", and Check again settles it once the server is back', { timeout: 60_000 }, async () => {
  const url = await startDemo();
  const port = Number(new URL(url).port);
  await ok(core.invoke('profiles.save', { name: 'Local', kind: 'local', baseUrl: url, select: true }));
  const workflowJson = JSON.stringify({
    '1': { class_type: 'DemoSampler', inputs: { prompt: 'slow', seed: 1, steps: 200, width: 64, height: 48, cfg: 7, sampler_name: 'euler', delay_ms: 400 } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'unreachable' } },
  });
  const { promptIds } = await ok<{ promptIds: string[] }>(core.invoke('run.submit', { workflowJson }));
  const promptId = promptIds[0]!;
  await waitFor((j) => j.promptId === promptId && j.phase === 'running', 15_000);

  await killDemo();
  const unknown = await waitFor((j) => j.promptId === promptId && !!j.unreachable, 20_000);
  expect(unknown.phase).toBe('running'); // the last known state, shown beside "unknown"
  const listed = await ok<{ jobs: JobSnapshotView[] }>(core.invoke('jobs.list', undefined));
  expect(listed.jobs.find((j) => j.promptId === promptId)?.unreachable).toMatchObject({ reason: expect.any(String) });

  // Back on the same address, without the job (a restart forgets the queue): Check again settles it.
  await startDemo(port);
  const checked = await ok<JobSnapshotView>(core.invoke('jobs.checkAgain', { promptId }));
  const settled = checked.phase === 'failed' ? checked : await waitFor((j) => j.promptId === promptId && j.phase === 'failed', 15_000);
  expect(settled.unreachable ?? null).toBeNull();
  expect(settled.status).toBe('lost');
});

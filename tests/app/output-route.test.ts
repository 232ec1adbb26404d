// Which finished jobs the app records in the library is decided by the origin on the job's journal
// record, never by memory. The start-up race that motivated it: jobs sent by an earlier process
// end while the app core is starting (the tracker reconciles them before any hot folder runs).
// A hot folder's job must be left to its folder (which imports it with its input as source); a
// `flowdeck run` job is recorded directly. Real SQLite, the real core, the local demo service.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { AppCore } from '@main/app/core';
import { JsonSettingsStore } from '@main/config/json-settings';
import { DemoService } from '../../src/main/demo';
import { JobStore } from '@main/jobs/job-store';
import { outputRouteOf } from '@main/jobs/output-route';
import { Store } from '@main/store/store';
import { submitJob } from '@main/jobs/submit-job';
import { Library } from '../../src/main/library';
import { ServiceClient } from '@main/service/client';
import type { Workflow } from '@main/service/types';
import type { JobOrigin } from '@main/jobs/types';
import { demoAppCore } from '../support/demo-core';

const service = new DemoService({ flavour: 'local', timeScale: 0.05 });
let core: AppCore | null = null;
let dataDir = '';

beforeAll(() => service.start());
afterAll(() => service.stop());
afterEach(async () => {
  await core?.dispose();
  core = null;
  rmSync(dataDir, { recursive: true, force: true });
});

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function workflow(prompt: string): Workflow {
  return {
    '3': { class_type: 'DemoSampler', inputs: { prompt, seed: 7, steps: 4, width: 32, height: 24, cfg: 7, sampler_name: 'euler', delay_ms: 150 } },
    '9': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'route' } },
  };
}

it('routes by origin: hot folder jobs to the folder (until it is removed), everything else to the library', () => {
  const of = (origin: JobOrigin | null, libraryTakesOutputs = false) => outputRouteOf({ origin, libraryTakesOutputs });
  expect(of('hot-folder')).toBe('hot-folder');
  expect(of('hot-folder', true)).toBe('record');
  expect(of('window')).toBe('record');
  expect(of('cli')).toBe('record');
  expect(of('other')).toBe('record');
  expect(of(null)).toBe('record');
  expect(outputRouteOf(null)).toBe('record');
});

it('a hot folder job ending while the app core starts is not recorded by the app; a CLI job is', async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-route-'));
  const database = join(dataDir, 'flowdeck.sqlite');

  // "An earlier process": a hot folder and `flowdeck run` each sent a job, then the process ended.
  const earlier = await Store.open(database);
  const jobs = await JobStore.open(earlier);
  const api = new ServiceClient({ kind: 'local', baseUrl: service.url }, { apiKey: () => null });
  const target = { api, jobs, clientId: 'earlier-process' };
  const fromFolder = await submitJob(target, { workflow: workflow('from a hot folder'), workflowName: 'folder.json', origin: 'hot-folder' });
  const fromCli = await submitJob(target, { workflow: workflow('from the command line'), workflowName: 'cli.json', origin: 'cli' });
  expect((await jobs.get(fromFolder.promptId))?.origin).toBe('hot-folder');
  await earlier.close();

  const settings = new JsonSettingsStore(dataDir);
  settings.update((s) => ({ ...s, profiles: [{ id: 'p-local', name: 'Local', kind: 'local', baseUrl: service.url }], activeProfileId: 'p-local' }));

  // The app starts while both jobs are still running; the tracker reconciles and follows them.
  core = demoAppCore(dataDir, { settings });
  await core.start();
  const phases = async (): Promise<string[]> => {
    const listed = await core!.invoke('jobs.list', undefined);
    if (!listed.ok) return [];
    const all = (listed.value as { jobs: Array<{ promptId: string; phase: string }> }).jobs;
    return [fromFolder.promptId, fromCli.promptId].map((id) => all.find((j) => j.promptId === id)?.phase ?? 'missing');
  };
  await waitFor(async () => (await phases()).every((p) => p === 'succeeded'), 'both jobs to end', 20_000);

  // Give the library time for both recordings, then read its index from the store.
  const library = async (): Promise<string[]> => {
    const store = await Store.open(database);
    try {
      const lib = await Library.open({ store, root: join(dataDir, 'library'), source: () => null });
      try {
        return (await lib.list({})).map((item) => item.promptId);
      } finally {
        await lib.dispose();
      }
    } finally {
      await store.close();
    }
  };
  await new Promise((r) => setTimeout(r, 1500));
  await core.dispose();
  core = null;
  const recorded = await library();
  expect(recorded).toContain(fromCli.promptId);
  expect(recorded).not.toContain(fromFolder.promptId);
});

// Run's repeat count on the pool, through the app core, against two real demo services (local
// flavour, real HTTP + WebSocket, real files): run.submit with target 'pool' sends the runs to both
// servers (the form's uploaded image copied to the server that lacks it), journals each job with
// origin 'window' and the profile of its server, sends every job's progress to the renderer, and
// each output enters the library with that profile; target 'active' (and no target) runs on the
// active server only, as before; 'pool' without a pool is refused with the reason.
import { readdirSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventPayload, ProfileView } from '@shared/ipc/contract';
import type { AppCore } from '@main/app/core';

import { Store } from '@main/store/store';
import { JobStore } from '@main/jobs/job-store';
import { Library } from '../../src/main/library';
import { invertWorkflow, makePng, totalSubmissions, until } from '../watch/helpers';
import { failure, ok } from '../support/demo-core';
import { poolAppFixture } from '../support/pool-app';

const app = poolAppFixture('flowdeck-pool-run-');
const openCore = (): Promise<AppCore> => app.openCore();

function updates(): EventPayload<'job.update'>[] {
  return app.events.filter((e) => e.name === 'job.update').map((e) => e.payload as EventPayload<'job.update'>);
}

function succeeded(): Set<string> {
  return new Set(
    updates()
      .filter((u) => u.phase === 'succeeded')
      .map((u) => u.promptId),
  );
}

function pngsUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.png') && !f.includes('.thumbnails'));
  } catch {
    return [];
  }
}

/** Two local profiles, GPU 1 active, both in the pool (one job at a time each). */
async function twoServerPool(c: AppCore): Promise<{ gpu1: ProfileView; gpu2: ProfileView }> {
  const gpu1 = await ok(c, 'profiles.save', { name: 'GPU 1', kind: 'local', baseUrl: app.first.url, select: true });
  const gpu2 = await ok(c, 'profiles.save', { name: 'GPU 2', kind: 'local', baseUrl: app.second.url });
  await ok(c, 'pool.save', {
    servers: [
      { profileId: gpu1.id, concurrency: 1 },
      { profileId: gpu2.id, concurrency: 1 },
    ],
  });
  return { gpu1, gpu2 };
}

/** The form's image, uploaded to the active server as the Run form does; the workflow names it there. */
async function workflowWithUpload(c: AppCore): Promise<string> {
  const image = join(app.work, 'portrait.png');
  writeFileSync(image, makePng(4242, 16, 12));
  const uploaded = await ok(c, 'upload.image', { path: image });
  if (!uploaded) throw new Error('no upload');
  return JSON.stringify(invertWorkflow({ '1': { class_type: 'LoadImage', inputs: { image: uploaded.inputValue } } }));
}

describe('repeated runs on the pool in the app', () => {
  it(
    "runs repeat 4 on both servers, each job journaled with its server's profile, live to the renderer, outputs in the library",
    { timeout: 120_000 },
    async () => {
      const c = await openCore();
      const { gpu1, gpu2 } = await twoServerPool(c);
      const workflowJson = await workflowWithUpload(c);
      const before = [totalSubmissions(app.first), totalSubmissions(app.second)] as const;

      const submitted = await ok(c, 'run.submit', { workflowJson, repeat: 4, label: 'pool-run.json', target: 'pool' });
      // One job at a time per server: at least two accepted when it answers, the others waiting
      // for room (one may have been accepted too, when a job ended meanwhile).
      expect(submitted.promptIds.length).toBeGreaterThanOrEqual(2);
      expect(submitted.promptIds.length + (submitted.waiting ?? 0)).toBe(4);

      await until(() => succeeded().size === 4, 'four jobs succeeded', 60_000);
      const ran = [totalSubmissions(app.first) - before[0], totalSubmissions(app.second) - before[1]];
      expect(ran[0]).toBeGreaterThan(0);
      expect(ran[1]).toBeGreaterThan(0);
      expect(ran[0]! + ran[1]!).toBe(4);

      // Every job reached the renderer live, with the profile of the server that ran it.
      const profileOf = new Map(updates().map((u) => [u.promptId, u.profileId]));
      expect([...succeeded()].every((id) => profileOf.get(id) === gpu1.id || profileOf.get(id) === gpu2.id)).toBe(true);
      expect([...succeeded()].filter((id) => profileOf.get(id) === gpu2.id)).toHaveLength(ran[1]!);
      for (const id of submitted.promptIds) expect(succeeded().has(id)).toBe(true);

      // jobs.list merges the journal with both servers' trackers.
      const listed = (await ok(c, 'jobs.list')).jobs.filter((j) => succeeded().has(j.promptId));
      expect(listed).toHaveLength(4);
      expect(listed.every((j) => j.origin === 'window')).toBe(true);

      // The four outputs are the same picture (one input, inverted), so the library's folder may hold
      // one file; its index holds each job's output, downloaded from the server that made it.
      const done = async (): Promise<number> => (await ok(c, 'library.list')).items.filter((i) => i.status === 'done').length;
      for (let n = await done(), deadline = Date.now() + 30_000; n < 4; n = await done()) {
        if (Date.now() > deadline) throw new Error(`only ${n} of 4 outputs reached the library`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(pngsUnder(join(app.dataDir, 'library')).length).toBeGreaterThan(0);
      await c.dispose();
      const store = await Store.open(join(app.dataDir, 'flowdeck.sqlite'));
      const library = await Library.open({ store, root: join(app.dataDir, 'library'), source: () => null });
      try {
        const jobs = await JobStore.open(store);
        for (const id of succeeded()) {
          const record = await jobs.get(id);
          expect(record).toMatchObject({ origin: 'window', phase: 'succeeded', profileId: profileOf.get(id) });
          expect(record?.baseUrl).toBe(profileOf.get(id) === gpu1.id ? app.first.url : app.second.url);
        }
        const items = await library.list();
        expect(items).toHaveLength(4);
        for (const item of items) {
          expect(item.status).toBe('done');
          expect(item.server.profileId).toBe(profileOf.get(item.promptId));
        }
      } finally {
        await library.dispose();
        await store.close();
      }
    },
  );

  it('runs on the active server only with target "active" or none, as before', async () => {
    const c = await openCore();
    const { gpu1 } = await twoServerPool(c);
    const workflowJson = await workflowWithUpload(c);
    const before = [totalSubmissions(app.first), totalSubmissions(app.second)] as const;
    const explicit = await ok(c, 'run.submit', { workflowJson, repeat: 2, label: 'active.json', target: 'active' });
    const implicit = await ok(c, 'run.submit', { workflowJson, repeat: 1, label: 'active.json' });
    // All accepted at once, none waiting: the active server queues them itself.
    expect(explicit).toEqual({ promptIds: [expect.any(String), expect.any(String)] });
    expect(implicit.promptIds).toHaveLength(1);
    const ids = [...explicit.promptIds, ...implicit.promptIds];
    await until(() => ids.every((id) => succeeded().has(id)), 'the active jobs succeeded', 30_000);
    expect([totalSubmissions(app.first) - before[0], totalSubmissions(app.second) - before[1]]).toEqual([3, 0]);
    const listed = (await ok(c, 'jobs.list')).jobs.filter((j) => ids.includes(j.promptId));
    expect(listed.map((j) => j.profileId)).toEqual([gpu1.id, gpu1.id, gpu1.id]);
  });

  it('cancels a pool job on its own server, not the active one', async () => {
    const c = await openCore();
    const { gpu2 } = await twoServerPool(c);
    const slow = JSON.stringify({
      '3': {
        class_type: 'DemoSampler',
        inputs: { prompt: 'slow', seed: 7, steps: 40, width: 64, height: 64, cfg: 7, sampler_name: 'euler', delay_ms: 500, fail_at_step: 0 },
      },
      '9': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'slow' } },
    });
    const { promptIds } = await ok(c, 'run.submit', { workflowJson: slow, repeat: 2, label: 'slow.json', target: 'pool' });
    expect(promptIds).toHaveLength(2);
    await until(() => promptIds.every((id) => updates().some((u) => u.promptId === id)), 'both jobs reported');
    const onGpu2 = updates().find((u) => promptIds.includes(u.promptId) && u.profileId === gpu2.id)!.promptId;
    const onGpu1 = promptIds.find((id) => id !== onGpu2)!;
    expect(await ok(c, 'jobs.cancel', { promptId: onGpu2 })).toEqual({ cancelled: true });
    await until(() => updates().some((u) => u.promptId === onGpu2 && u.phase === 'cancelled'), 'the GPU 2 job cancelled', 30_000);
    // The job on the active server goes on.
    expect(
      updates()
        .filter((u) => u.promptId === onGpu1)
        .at(-1)?.phase,
    ).not.toBe('cancelled');
    expect(await ok(c, 'jobs.cancel', { promptId: onGpu1 })).toEqual({ cancelled: true });
  });

  it('refuses target "pool" without a pool, naming what to do', async () => {
    const c = await openCore();
    await ok(c, 'profiles.save', { name: 'GPU 1', kind: 'local', baseUrl: app.first.url, select: true });
    const workflowJson = JSON.stringify(invertWorkflow());
    const error = await failure(c, 'run.submit', { workflowJson, repeat: 2, target: 'pool' });
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/No pool is set/);
  });
});

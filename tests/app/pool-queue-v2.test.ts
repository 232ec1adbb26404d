// The Queue view's pool columns with a member that speaks only Comfy API v2 (the real demo, v2
// "only"), beside a v1 server: that member has no server queue, so its column says so plainly and
// lists the unfinished jobs this app sent it (from the job journal), never an error. Its profile
// is a plain local one: the capabilities found when connecting decide, not the profile's kind.
import { afterEach, describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '@shared/ipc/contract';
import { demoCoreInTemp, ok, type DemoCore } from '../support/demo-core';
import { until } from '../watch/helpers';
import { startDemo } from '../v2/support';

const cores: DemoCore[] = [];
afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
});

function sampler(prompt: string): string {
  return JSON.stringify({
    '3': {
      class_type: 'DemoSampler',
      inputs: { prompt, seed: 7, steps: 60, width: 32, height: 32, cfg: 7, sampler_name: 'euler', delay_ms: 400, fail_at_step: 0 },
    },
    '9': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'pool-v2' } },
  });
}

function payloads<E extends EventName>(c: DemoCore, name: E): EventPayload<E>[] {
  return c.events.filter((e) => e.name === name).map((e) => e.payload as EventPayload<E>);
}

describe('pool queues with a v2-only member', () => {
  it("shows the app's own unfinished jobs there with a plain note, and the v1 member's server queue", async () => {
    const v1 = await startDemo({ flavour: 'local' }, 0.05);
    const v2 = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const c = demoCoreInTemp('flowdeck-pool-v2-');
    cores.push(c);
    await c.core.start();
    const gpu = await ok(c.core, 'profiles.save', { name: 'GPU', kind: 'local', baseUrl: v1.url, select: true });
    const deployment = await ok(c.core, 'profiles.save', { name: 'Deployment', kind: 'local', baseUrl: v2.url });
    await ok(c.core, 'pool.save', {
      servers: [
        { profileId: gpu.id, concurrency: 1 },
        { profileId: deployment.id, concurrency: 1 },
      ],
    });

    // Nothing sent yet: the v2 column is empty and says why it has no server queue.
    const idle = await ok(c.core, 'pool.queues');
    expect(idle.servers.map((q) => ({ name: q.name, error: q.error, note: q.note ?? null, running: q.running.length, pending: q.pending.length }))).toEqual([
      { name: 'GPU', error: null, note: null, running: 0, pending: 0 },
      { name: 'Deployment', error: null, note: 'No server queue (Comfy API v2): no unfinished jobs sent from here.', running: 0, pending: 0 },
    ]);

    // Four long runs on the pool: both servers get some.
    const sent = await ok(c.core, 'run.submit', { workflowJson: sampler('pool'), repeat: 4, target: 'pool', label: 'long.json' });
    await until(() => v2.v2!.stats.submitRequests > 0 && v1.stats.promptRequests > 0, 'both servers got a run', 20_000);
    await until(() => payloads(c, 'job.update').some((j) => j.phase === 'running'), 'a job runs', 20_000);

    const busy = await ok(c.core, 'pool.queues');
    const [gpuColumn, v2Column] = busy.servers;
    expect(gpuColumn).toMatchObject({ name: 'GPU', error: null, note: null });
    expect(v2Column).toMatchObject({
      name: 'Deployment',
      error: null,
      note: expect.stringMatching(/^No server queue \(Comfy API v2\): \d+ unfinished jobs? sent from here\.$/),
    });
    const onV2 = [...v2Column!.running, ...v2Column!.pending];
    expect(onV2.length).toBeGreaterThan(0);
    expect(v2Column!.note).toContain(`${onV2.length} unfinished`);
    // They are jobs this app sent there, labelled with what they run.
    for (const entry of onV2) expect(entry).toMatchObject({ label: 'long.json', number: null });
    const known = new Set([...sent.promptIds, ...payloads(c, 'job.update').map((j) => j.promptId)]);
    for (const entry of onV2) expect(known.has(entry.promptId)).toBe(true);
    // The v1 member's column is its server's own queue.
    expect(gpuColumn!.running.length + gpuColumn!.pending.length).toBeGreaterThan(0);

    for (const j of payloads(c, 'job.update')) await c.core.invoke('jobs.cancel', { promptId: j.promptId });
  });
});

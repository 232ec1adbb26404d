// The tracker over the real ServiceClient and EventsSocket against the demo service on 127.0.0.1:
// a DemoSampler -> SaveImage job, a failing one, a socket dropped mid-job, and reconciliation.
// (The CLI tests cover the whole `flowdeck run`; these stay on what the tracker does.)
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { JobStore } from '@main/jobs/job-store';
import { Store } from '@main/store/store';
import { JobTracker } from '@main/jobs/tracker';
import { ServiceClient } from '@main/service/client';
import { EventsSocket } from '@main/service/events-socket';
import type { ServerProfile, Workflow } from '@main/service/types';
import { demosOfBothFlavours } from '../support/both-flavours';

function samplerWorkflow(extra: Record<string, number> = {}): Workflow {
  return {
    '1': {
      class_type: 'DemoSampler',
      inputs: {
        prompt: 'a lighthouse',
        seed: 18446744073709551615n,
        steps: 3,
        width: 32,
        height: 24,
        cfg: 7,
        sampler_name: 'euler',
        delay_ms: 40,
        fail_at_step: 0,
        ...extra,
      },
    },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'tracker/test' } },
  };
}

const services = demosOfBothFlavours(0.05);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  services.local.faults.reset();
  services.cloud.faults.reset();
});

async function connect(flavour: 'cloud' | 'local', options: { withStore?: Store } = {}) {
  const service = services[flavour];
  const profile: ServerProfile = { kind: flavour, baseUrl: service.url };
  const apiKey = (): string | null => service.apiKey;
  const api = new ServiceClient(profile, { apiKey });
  const events = new EventsSocket(profile, { apiKey, backoff: { minMs: 50, maxMs: 200 } });
  const store = options.withStore ?? (await Store.open(':memory:'));
  const jobs = await JobStore.open(store);
  const tracker = new JobTracker({ api, events, jobs, pollIntervalMs: 100, timeoutMs: 15_000 });
  cleanups.push(async () => {
    await tracker.dispose();
    await events.dispose();
    if (!options.withStore) await store.close();
  });
  const connected = new Promise<void>((resolve) => {
    const off = events.onStateChange((state) => {
      if (state === 'connected') {
        off();
        resolve();
      }
    });
  });
  events.start();
  await connected;
  return { api, events, jobs, tracker };
}

describe.each(['local', 'cloud'] as const)('JobTracker with the %s demo service', (flavour) => {
  it('follows a DemoSampler -> SaveImage job to its output, with previews, and journals it', async () => {
    const { api, events, jobs, tracker } = await connect(flavour);
    const previews: string[] = [];
    tracker.onPreview((p) => previews.push(p.promptId));
    const workflow = samplerWorkflow();
    const { promptId } = await api.submit(workflow, { clientId: events.clientId });
    const end = await tracker.track(promptId, { workflow, workflowName: 'sampler' }).waitForEnd();
    expect(end.phase).toBe('succeeded');
    expect(end.error).toBeNull();
    expect(end.outputs).toHaveLength(1);
    expect(end.outputs[0]).toMatchObject({ node: '2', key: 'images', type: 'output' });
    expect(end.outputs[0]!.filename).toMatch(/\.png$/);
    expect(end).toMatchObject({ nodesTotal: 2, nodesDone: 2 });
    expect(previews.length).toBeGreaterThan(0);
    expect(new Set(previews)).toEqual(new Set([promptId]));
    expect(end.latestPreview?.mime).toMatch(/^image\/(jpeg|png)$/);
    const record = await jobs.get(promptId);
    expect(record).toMatchObject({ phase: 'succeeded', serverKind: flavour, workflowName: 'sampler' });
    expect(record!.outputs).toEqual(end.outputs);
  });

  it('a waiting job deleted by another client ends as cancelled, not failed', async () => {
    const { api, events, tracker } = await connect(flavour);
    const other = new ServiceClient({ kind: flavour, baseUrl: services[flavour].url }, { apiKey: () => services[flavour].apiKey });
    const long = await api.submit(samplerWorkflow({ steps: 200, delay_ms: 1000 }), { clientId: events.clientId });
    const waiting = await api.submit(samplerWorkflow({ steps: 1 }), { clientId: events.clientId });
    const job = tracker.track(waiting.promptId, { workflow: samplerWorkflow() });
    // Let the tracker see it waiting in the queue first (it polls a job with no events).
    await new Promise((r) => setTimeout(r, 1200));
    await other.cancel([waiting.promptId]);
    const end = await job.waitForEnd({ timeoutMs: 10_000 });
    expect(end.phase).toBe('cancelled');
    await api.stopJob(long.promptId, { stopOthers: true });
  });

  it('reports a node failure with its explanation', async () => {
    const { api, events, tracker } = await connect(flavour);
    const workflow = samplerWorkflow({ fail_at_step: 2 });
    const { promptId } = await api.submit(workflow, { clientId: events.clientId });
    const end = await tracker.track(promptId, { workflow }).waitForEnd();
    expect(end.phase).toBe('failed');
    expect(end.error).toMatchObject({ exceptionType: 'RuntimeError', nodeId: '1', nodeType: 'DemoSampler' });
    expect(end.error?.message).toMatch(/deliberate failure at step 2/);
    expect(end.error?.explanation).toMatch(/node failed/i);
    expect(end.nodes['1']?.state).toBe('error');
  });

  it('still gets the outputs when the socket drops mid-job', async () => {
    const { api, events, tracker } = await connect(flavour);
    const states: string[] = [];
    events.onStateChange((s) => states.push(s));
    services[flavour].faults.dropSocketsMidJob(1);
    const workflow = samplerWorkflow({ steps: 4 });
    const { promptId } = await api.submit(workflow, { clientId: events.clientId });
    const end = await tracker.track(promptId, { workflow }).waitForEnd();
    expect(states.some((s) => s !== 'connected')).toBe(true);
    expect(end.phase).toBe('succeeded');
    expect(end.outputs).toHaveLength(1);
  });
});

describe('JobTracker.reconcile against the local demo service', () => {
  it('finishes a job that ran while nobody watched, and fails one that never reached the server', async () => {
    const store = await Store.open(':memory:');
    cleanups.push(() => store.close());
    const service = services.local;
    const profile: ServerProfile = { kind: 'local', baseUrl: service.url };
    const journal = await JobStore.open(store);

    // "Before the restart": one job recorded and sent, one recorded but never sent.
    const api = new ServiceClient(profile, { apiKey: () => null });
    const sentId = randomUUID();
    const lostId = randomUUID();
    const base = { serverKind: 'local' as const, baseUrl: service.url, clientId: 'old-client', workflow: samplerWorkflow() };
    await journal.recordSubmitting({ ...base, promptId: sentId });
    await journal.recordSubmitting({ ...base, promptId: lostId });
    await api.submit(samplerWorkflow({ steps: 2 }), { clientId: 'old-client', promptId: sentId });

    // "After the restart": a new socket with another client id reconciles the journal.
    const { tracker } = await connect('local', { withStore: store });
    const results = await tracker.reconcile();
    expect(results.map((r) => r.promptId).sort()).toEqual([sentId, lostId].sort());
    const lost = results.find((r) => r.promptId === lostId)!;
    expect(lost).toMatchObject({ phase: 'failed', rawStatus: 'never_submitted' });
    const end = await tracker.waitForEnd(sentId);
    expect(end.phase).toBe('succeeded');
    expect(end.outputs).toHaveLength(1);
    expect((await journal.get(sentId))?.phase).toBe('succeeded');
    expect(await journal.listInFlight()).toEqual([]);
  });
});

// The job pipeline (jobs/submit-job.ts, jobs/server-verdict.ts) against both demo flavours over the
// real ServiceClient: the intent journaled before the submit where the client picks the id, one
// submit, the origin on the record, a refusal leaving nothing behind, a resend under the same id,
// and the one verdict on a doubtful job (ended, in flight, unknown, unreachable).
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { JobStore } from '@main/jobs/job-store';
import { askServer, type Verdict } from '@main/jobs/server-verdict';
import { Store } from '@main/store/store';
import { submitJob } from '@main/jobs/submit-job';
import { JobTracker } from '@main/jobs/tracker';
import { WorkflowRejectedError } from '@main/service/errors';
import { ServiceClient } from '@main/service/client';
import { EventsSocket } from '@main/service/events-socket';
import type { ServiceApi } from '@main/service/ports';
import type { ServerProfile, Workflow } from '@main/service/types';
import { closedPort } from '../support/closed-port';
import { demosOfBothFlavours } from '../support/both-flavours';

type Flavour = 'cloud' | 'local';

const services = demosOfBothFlavours(0.05);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function sampler(delayMs: number, classType = 'DemoSampler'): Workflow {
  return {
    '1': {
      class_type: classType,
      inputs: { prompt: 'a pipeline', seed: 3, steps: 2, width: 32, height: 24, cfg: 7, sampler_name: 'euler', delay_ms: delayMs },
    },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'pipeline/test' } },
  };
}

async function setup(flavour: Flavour) {
  const service = services[flavour];
  const profile: ServerProfile = { kind: flavour, baseUrl: service.url };
  const apiKey = (): string | null => service.apiKey;
  const api = new ServiceClient(profile, { apiKey });
  const store = await Store.open(':memory:');
  const jobs = await JobStore.open(store);
  cleanups.push(() => store.close());
  return { service, profile, apiKey, api, jobs };
}

/** `api`, with its submit first reporting what the journal held at the moment of sending. */
function observingSubmit(api: ServiceApi, atSubmit: (promptId: string | undefined) => Promise<void>): ServiceApi {
  return new Proxy(api, {
    get(target, property) {
      if (property === 'submit') {
        return async (workflow: Workflow, options: Parameters<ServiceApi['submit']>[1]) => {
          await atSubmit(options.promptId);
          return target.submit(workflow, options);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function verdictWithin(api: ServiceApi, promptId: string, wanted: Verdict['kind'], timeoutMs = 15_000): Promise<Verdict> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const verdict = await askServer(api, promptId);
    if (verdict.kind === wanted || Date.now() > deadline) return verdict;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(['local', 'cloud'] as const)('the job pipeline on the %s demo service', (flavour) => {
  it('journals the intent before the submit where the client picks the id, submits once, and the tracker follows it', async () => {
    const { service, profile, apiKey, api, jobs } = await setup(flavour);
    const seen: Array<{ chosen: string | undefined; phase: string | null; inFlight: number }> = [];
    const observed = observingSubmit(api, async (chosen) => {
      seen.push({ chosen, phase: chosen ? ((await jobs.get(chosen))?.phase ?? null) : null, inFlight: (await jobs.listInFlight()).length });
    });
    const before = [...service.stats.submissions.values()].reduce((a, b) => a + b, 0);
    const submitted = await submitJob(
      { api: observed, jobs, clientId: 'pipeline-test', profileId: 'p-1' },
      { workflow: sampler(20), workflowName: 'pipe.json', origin: 'cli' },
    );

    expect(seen).toHaveLength(1);
    if (api.capabilities.clientPromptId) {
      // The id went out as journaled: a crash after sending can be settled by asking the server.
      expect(seen[0]).toEqual({ chosen: submitted.promptId, phase: 'submitting', inFlight: 1 });
    } else {
      // The server assigns the id: nothing can be journaled under it before the answer.
      expect(seen[0]).toEqual({ chosen: undefined, phase: null, inFlight: 0 });
    }
    expect([...service.stats.submissions.values()].reduce((a, b) => a + b, 0)).toBe(before + 1);
    expect(await jobs.get(submitted.promptId)).toMatchObject({
      phase: 'pending',
      origin: 'cli',
      profileId: 'p-1',
      workflowName: 'pipe.json',
      serverKind: flavour,
    });

    const events = new EventsSocket(profile, { apiKey, backoff: { minMs: 50, maxMs: 200 } });
    const tracker = new JobTracker({ api, events, jobs, pollIntervalMs: 100, timeoutMs: 15_000 });
    cleanups.push(async () => {
      await tracker.dispose();
      await events.dispose();
    });
    events.start();
    const end = await tracker.track(submitted.promptId, { origin: 'cli' }).waitForEnd();
    expect(end.phase).toBe('succeeded');
    expect(await jobs.get(submitted.promptId)).toMatchObject({ phase: 'succeeded', origin: 'cli' });
  });

  it('leaves no journal entry for a workflow the server refuses', async () => {
    const { api, jobs } = await setup(flavour);
    await expect(
      submitJob({ api, jobs, clientId: 'pipeline-test' }, { workflow: sampler(0, 'NoSuchNode'), workflowName: 'bad.json', origin: 'window' }),
    ).rejects.toBeInstanceOf(WorkflowRejectedError);
    expect(await jobs.list()).toEqual([]);
  });

  it('a resend under an id the server already has is taken as accepted, not run twice', async () => {
    const { service, api, jobs } = await setup(flavour);
    if (!api.capabilities.clientPromptId) {
      // The server assigns ids here: there is no id of ours to send twice.
      expect(flavour).toBe('cloud');
      return;
    }
    const first = await submitJob({ api, jobs, clientId: 'pipeline-test' }, { workflow: sampler(20), workflowName: 'once.json', origin: 'hot-folder' });
    const count = [...service.stats.submissions.values()].reduce((a, b) => a + b, 0);
    const again = await submitJob(
      { api, jobs, clientId: 'pipeline-test' },
      { workflow: sampler(20), workflowName: 'once.json', origin: 'hot-folder', promptId: first.promptId },
    );
    expect(again.promptId).toBe(first.promptId);
    expect([...service.stats.submissions.values()].reduce((a, b) => a + b, 0)).toBe(count);
    expect(await jobs.get(first.promptId)).toMatchObject({ origin: 'hot-folder', phase: 'pending' });
  });

  it('gives one verdict on a doubtful job: in flight, ended with its outputs, unknown, unreachable', async () => {
    const { api, jobs } = await setup(flavour);
    const slow = await submitJob({ api, jobs, clientId: 'pipeline-test' }, { workflow: sampler(400), workflowName: 'slow.json', origin: 'window' });
    const inFlight = await askServer(api, slow.promptId);
    expect(inFlight.kind).toBe('in_flight');

    const ended = await verdictWithin(api, slow.promptId, 'ended');
    expect(ended).toMatchObject({ kind: 'ended', reading: { phase: 'succeeded' } });
    expect(ended.kind === 'ended' ? ended.history?.outputs.map((o) => o.type) : null).toEqual(['output']);

    expect(await askServer(api, randomUUID())).toEqual({ kind: 'unknown' });

    const gone = new ServiceClient({ kind: flavour, baseUrl: `http://127.0.0.1:${await closedPort()}` }, { apiKey: () => 'k' });
    const unreachable = await askServer(gone, slow.promptId);
    expect(unreachable.kind).toBe('unreachable');
    expect(unreachable.kind === 'unreachable' ? unreachable.reason : '').not.toBe('');
  });

  it('says a failed job ended as failed, with the error from its history', async () => {
    const { api, jobs } = await setup(flavour);
    const workflow = sampler(10);
    (workflow['1'] as { inputs: Record<string, unknown> }).inputs['fail_at_step'] = 1;
    const failing = await submitJob({ api, jobs, clientId: 'pipeline-test' }, { workflow, workflowName: 'fail.json', origin: 'window' });
    const verdict = await verdictWithin(api, failing.promptId, 'ended');
    expect(verdict).toMatchObject({ kind: 'ended', reading: { phase: 'failed' } });
    expect(verdict.kind === 'ended' ? verdict.history?.error?.exceptionMessage : null).toBeTruthy();
  });
});

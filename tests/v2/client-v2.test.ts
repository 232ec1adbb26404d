// The v2 client (service/v2) through the single job pipeline (submitJob, the tracker, the journal)
// against the demo's v2 surfaces: the cloud with v1 beside it, a v2-only deployment without a
// token, and one with a token. Real HTTP, real SQLite, real files; the server counts what it got.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DemoService } from '../../src/main/demo';
import { startDemo } from './support';
import { encodePng } from '@main/images/mask-compose';
import { JobStore } from '@main/jobs/job-store';
import { Store } from '@main/store/store';
import { submitJob } from '@main/jobs/submit-job';
import { resendUnanswered } from '@main/jobs/submit-v2';
import { JobTracker } from '@main/jobs/tracker';
import { WorkflowRejectedError } from '@main/service/errors';
import { HttpTransport } from '@main/service/http';
import type { Workflow } from '@main/service/types';
import { V2Client } from '@main/service/v2/client';
import { connectService, type ConnectedService } from '@main/service/v2/connect';
import { discoverContract } from '@main/service/v2/discover';
import { SendMayHaveRunError } from '@main/service/v2/submit';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SURFACES = {
  cloud: () => startDemo({ flavour: 'cloud', v2: 'beside' }),
  'v2-only': () => startDemo({ flavour: 'local', v2: 'only' }),
} as const;
type Surface = keyof typeof SURFACES;

function work(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowdeck-v2-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function pngFile(dir: string, name: string, seed: number): string {
  const data = new Uint8Array(8 * 8 * 4).map((_, i) => (i * 17 + seed) % 256);
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  const path = join(dir, name);
  writeFileSync(path, encodePng({ width: 8, height: 8, data }));
  return path;
}

function invert(image: string): Workflow {
  return {
    '1': { class_type: 'LoadImage', inputs: { image } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'v2client' } },
  };
}

function sampler(steps = 3, delay = 20): Workflow {
  return {
    '3': {
      class_type: 'DemoSampler',
      inputs: { prompt: 'v2 client', seed: 5, steps, width: 32, height: 32, cfg: 7, sampler_name: 'euler', delay_ms: delay, fail_at_step: 0 },
    },
    '9': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'v2c' } },
  };
}

async function connect(
  svc: DemoService,
  extra: { onWait?: (m: string) => void; key?: string | null } = {},
): Promise<ConnectedService & { jobs: JobStore; tracker: JobTracker }> {
  const key = extra.key === undefined ? svc.apiKey : extra.key;
  const connected = await connectService(
    { kind: svc.apiKey ? 'cloud' : 'local', baseUrl: svc.url },
    { apiKey: () => key, ...(extra.onWait ? { onWait: extra.onWait } : {}) },
  );
  const store = await Store.open(':memory:');
  const jobs = await JobStore.open(store);
  const tracker = new JobTracker({ api: connected.api, events: connected.events, jobs, pollIntervalMs: 200 });
  connected.events.start();
  cleanups.push(async () => {
    await tracker.dispose();
    await connected.events.dispose();
    await store.close();
  });
  return { ...connected, jobs, tracker };
}

async function run(c: Awaited<ReturnType<typeof connect>>, workflow: Workflow) {
  const submitted = await submitJob({ api: c.api, jobs: c.jobs, clientId: c.events.clientId }, { workflow, workflowName: 'wf.json', origin: 'cli' });
  const snapshot = await c.tracker.track(submitted.promptId, { workflow }).waitForEnd({ timeoutMs: 20_000 });
  return { submitted, snapshot };
}

describe('discovery without side effects', () => {
  it('tells v1 from v2, whether v1 is beside it, and whether a key is needed, creating nothing', async () => {
    const local = await startDemo({ flavour: 'local' });
    const cloud = await startDemo({ flavour: 'cloud' });
    const beside = await startDemo({ flavour: 'cloud', v2: 'beside' });
    const only = await startDemo({ flavour: 'local', v2: 'only' });
    const guarded = await startDemo({ flavour: 'local', v2: 'only', v2Token: 'tok-1' });
    // expectV2 (a v2 profile, or the last run found v2 there) asks both questions at once: the
    // findings must be the same, whatever the server now speaks.
    for (const expectV2 of [false, true]) {
      const probe = (svc: DemoService, key: string | null) =>
        discoverContract(new HttpTransport({ kind: 'local', baseUrl: svc.url }, { apiKey: () => key, auth: 'bearer' }), { expectV2 });
      expect(await probe(local, null)).toEqual({ contract: 'v1' });
      expect(await probe(cloud, cloud.apiKey)).toEqual({ contract: 'v1' });
      expect(await probe(beside, beside.apiKey)).toEqual({ contract: 'v2', needsKey: false, v1Beside: true });
      expect(await probe(beside, null)).toEqual({ contract: 'v2', needsKey: true, v1Beside: true });
      expect(await probe(only, null)).toEqual({ contract: 'v2', needsKey: false, v1Beside: false });
      expect(await probe(guarded, null)).toMatchObject({ contract: 'v2', needsKey: true });
      expect(await probe(guarded, 'tok-1')).toMatchObject({ contract: 'v2', needsKey: false });
      // Unexpected, a v1 server is not asked for its features by discovery (its own client asks once).
      if (!expectV2) expect([local.stats.featuresRequests, cloud.stats.featuresRequests]).toEqual([0, 0]);
    }
    for (const svc of [local, cloud, beside, only, guarded]) expect(svc.stats.promptRequests + (svc.v2?.stats.submitRequests ?? 0) + svc.stats.uploads).toBe(0);
    const c = await connect(only);
    expect(c.api.capabilities).toMatchObject({ contract: 'v2', nodeDefinitions: false, needsApiKey: false, interrupt: 'one-prompt' });
    await expect(c.api.getNodeDefinitions()).rejects.toThrow(/only Comfy API v2/);
  });
});

describe('discovery when v2 is expected', () => {
  /** A v2-only server that holds the probe's answer until the features are asked (at most 1 s), noting the order. */
  async function orderedServer() {
    const seen: string[] = [];
    let featuresAsked: () => void = () => {};
    const features = new Promise<void>((resolve) => (featuresAsked = resolve));
    const server = http.createServer((req, res) => {
      const notFound = () => {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'not_found', message: 'no such thing' } }));
      };
      if (req.url === '/api/features') {
        seen.push('features');
        featuresAsked();
        return notFound();
      }
      seen.push('probe');
      void Promise.race([features, new Promise((resolve) => setTimeout(resolve, 1000))]).then(() => {
        seen.push('probe answered');
        notFound();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }

  it('asks for the features while the contract check is in flight (one round trip), and in turn otherwise', async () => {
    for (const expectV2 of [true, false]) {
      const server = await orderedServer();
      const transport = new HttpTransport({ kind: 'local', baseUrl: server.url }, { apiKey: () => null, auth: 'bearer' });
      expect(await discoverContract(transport, { expectV2 })).toEqual({ contract: 'v2', needsKey: false, v1Beside: false });
      expect(server.seen).toHaveLength(3);
      // Asked at once: the features arrive before the check is answered (the server holds it until then).
      expect(server.seen.indexOf('features') < server.seen.indexOf('probe answered')).toBe(expectV2);
    }
  });
});

describe.each(Object.keys(SURFACES) as Surface[])('the v2 client on the %s surface', (surface) => {
  it('runs a job on an uploaded input: the file crosses once per server, outputs come through their links', async () => {
    const svc = await SURFACES[surface]();
    const dir = work();
    const image = pngFile(dir, 'photo.png', 1);
    const c = await connect(svc);
    expect(c.api.capabilities.contract).toBe('v2');
    const uploads: string[] = [];
    for (let i = 0; i < 3; i += 1) uploads.push((await c.api.uploadImage(image)).name);
    expect(new Set(uploads).size).toBe(1);
    expect(uploads[0]).toMatch(/^core\/ASSET:/);
    // Another client of the same server (a second run, a pool member): the server has the bytes.
    const other = await connect(svc);
    expect((await other.api.uploadImage(image)).name).toBe(uploads[0]);
    expect(svc.v2!.stats.assetUploads).toBe(1);
    expect(svc.v2!.stats.fromHash).toBe(1);

    const { submitted, snapshot } = await run(c, invert(uploads[0]!));
    expect(snapshot.phase).toBe('succeeded');
    expect(snapshot.outputs).toHaveLength(1);
    // The journal row took the job's own id; the intent under the key is gone.
    expect((await c.jobs.get(submitted.promptId))?.phase).toBe('succeeded');
    expect([...svc.v2!.stats.jobsByKey.values()]).toEqual([1]);
    expect(await c.jobs.get([...svc.v2!.stats.jobsByKey.keys()][0]!)).toBeNull();

    const out = work();
    const file = await c.api.download(snapshot.outputs[0]!, out);
    expect(readFileSync(file.path).subarray(1, 4).toString()).toBe('PNG');
    if (surface === 'cloud') {
      expect(file.redirected).toBe(false);
      // Expired links: a fresh one from the asset, and the storage host never sees the key.
      svc.faults.expireSignedUrls();
      const again = await c.api.download(snapshot.outputs[0]!, out);
      expect(readFileSync(again.path).equals(readFileSync(file.path))).toBe(true);
      expect(svc.stats.storageRequestsWithKey).toBe(0);
      expect([...svc.stats.keysSeen]).toEqual([svc.apiKey]);
    }
  });

  it('follows a job by its event stream, with previews, and by polling when streams are refused', async () => {
    const svc = await SURFACES[surface]();
    const c = await connect(svc);
    const previews: number[] = [];
    c.tracker.onPreview((p) => previews.push(p.bytes.length));
    const streamed = await run(c, sampler(6, 2500));
    expect(streamed.snapshot.phase).toBe('succeeded');
    expect(streamed.snapshot.outputs).toHaveLength(1);
    expect(previews.length).toBeGreaterThan(0);
    expect(svc.v2!.stats.streamsOpened).toBe(1);
    svc.v2!.faults.refuseStreams(true);
    const polled = await run(c, sampler(2, 20));
    expect(polled.snapshot.phase).toBe('succeeded');
    expect(polled.snapshot.outputs).toHaveLength(1);
    expect(svc.v2!.stats.streamsOpened).toBe(1);
  });

  it('cancels one running job and leaves the other alone', async () => {
    const svc = await SURFACES[surface]();
    const c = await connect(svc);
    const long = await submitJob({ api: c.api, jobs: c.jobs, clientId: c.events.clientId }, { workflow: sampler(60, 60), workflowName: 'long', origin: 'cli' });
    const next = await submitJob({ api: c.api, jobs: c.jobs, clientId: c.events.clientId }, { workflow: sampler(2, 10), workflowName: 'next', origin: 'cli' });
    const longEnd = c.tracker.track(long.promptId).waitForEnd({ timeoutMs: 20_000 });
    const nextEnd = c.tracker.track(next.promptId).waitForEnd({ timeoutMs: 20_000 });
    for (let i = 0; i < 200 && (await c.api.getJobStatus(long.promptId)).phase !== 'running'; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(await c.api.stopJob(long.promptId)).toEqual({ kind: 'stopped' });
    expect((await longEnd).phase).toBe('cancelled');
    expect((await nextEnd).phase).toBe('succeeded');
  });

  it('words a rejected workflow per node, and waits out a deployment that is starting with the same key', async () => {
    const svc = await SURFACES[surface]();
    const waits: string[] = [];
    const c = await connect(svc, { onWait: (m) => waits.push(m) });
    const bad = sampler();
    (bad['3'] as { inputs: Record<string, unknown> }).inputs.steps = 0;
    const rejected = await submitJob({ api: c.api, jobs: c.jobs, clientId: c.events.clientId }, { workflow: bad, workflowName: 'bad', origin: 'cli' }).catch(
      (e: unknown) => e,
    );
    expect(rejected).toBeInstanceOf(WorkflowRejectedError);
    expect((rejected as Error).message).toContain('node 3 (DemoSampler)');
    expect(await c.jobs.listInFlight()).toEqual([]);

    svc.v2!.faults.notReady(2, 1);
    const { snapshot } = await run(c, sampler());
    expect(snapshot.phase).toBe('succeeded');
    expect(waits.filter((w) => w === 'deployment starting…')).toHaveLength(2);
    expect([...svc.v2!.stats.jobsByKey.values()]).toEqual([1]);
  });

  it('resends a send that never reached the server under the same key, and it runs once', async () => {
    const svc = await SURFACES[surface]();
    const c = await connect(svc);
    svc.v2!.faults.dropSubmitsBeforeCreating(1);
    const { snapshot } = await run(c, sampler());
    expect(snapshot.phase).toBe('succeeded');
    expect(svc.v2!.stats.submitRequests).toBe(2);
    expect([...svc.v2!.stats.jobsByKey.values()]).toEqual([1]);
  });
});

describe('an input the server lost', () => {
  it('is uploaded once more on missing_asset, and the job then runs', async () => {
    const svc = await SURFACES['v2-only']();
    const c = await connect(svc);
    const image = pngFile(work(), 'lost.png', 3);
    const uploaded = await c.api.uploadImage(image);
    // The server forgets the asset (deleted, expired): the next submit answers missing_asset.
    const id = uploaded.name.slice('core/ASSET:'.length);
    expect((await fetch(`${svc.url}/api/v2/assets/${id}`, { method: 'DELETE' })).status).toBe(204);
    const { snapshot } = await run(c, invert(uploaded.name));
    expect(snapshot.phase).toBe('succeeded');
    expect(svc.v2!.stats.assetUploads).toBe(2);
    expect([...svc.v2!.stats.jobsByKey.values()]).toEqual([1]);
  });

  it('is reported plainly when its file is gone too (nothing to send again), and no job is made', async () => {
    const svc = await SURFACES['v2-only']();
    const c = await connect(svc);
    const image = pngFile(work(), 'gone.png', 4);
    const uploaded = await c.api.uploadImage(image);
    const id = uploaded.name.slice('core/ASSET:'.length);
    expect((await fetch(`${svc.url}/api/v2/assets/${id}`, { method: 'DELETE' })).status).toBe(204);
    rmSync(image);
    const refused = await run(c, invert(uploaded.name)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WorkflowRejectedError);
    expect((refused as WorkflowRejectedError).errorType).toBe('missing_asset');
    expect(svc.v2!.stats.assetUploads).toBe(1);
    expect(svc.v2!.stats.jobsByKey.size).toBe(0);
  });
});

describe('an answer that is lost after the job was made', () => {
  it('v2-only: the resend is refused as a reuse, and the job is found by its key and followed', async () => {
    const svc = await SURFACES['v2-only']();
    const c = await connect(svc);
    svc.v2!.faults.loseSubmitAnswers(1);
    const { submitted, snapshot } = await run(c, sampler());
    expect(snapshot.phase).toBe('succeeded');
    expect([...svc.v2!.stats.jobsByKey.values()]).toEqual([1]);
    expect(svc.stats.submissions.get(submitted.promptId)).toBe(1);
    expect(svc.stats.submissions.size).toBe(1);
  });

  it('cloud (no job list): says plainly that a run may exist, and the journal keeps that', async () => {
    const svc = await SURFACES.cloud();
    const c = await connect(svc);
    svc.v2!.faults.loseSubmitAnswers(1);
    const failure = await submitJob(
      { api: c.api, jobs: c.jobs, clientId: c.events.clientId },
      { workflow: sampler(), workflowName: 'lost', origin: 'cli' },
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SendMayHaveRunError);
    expect((failure as Error).message).toMatch(/may have created a job.*Check the server's job list/s);
    const key = [...svc.v2!.stats.jobsByKey.keys()][0]!;
    expect(svc.v2!.stats.jobsByKey.get(key)).toBe(1);
    expect(await c.jobs.get(key)).toMatchObject({ phase: 'failed', rawStatus: 'may_exist', error: { exceptionType: 'idempotency_key_reuse' } });
  });
});

describe('a v2-only deployment with a token', () => {
  it('needs the key only after it said 401, then takes it as a bearer token', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only', v2Token: 'tok-9' });
    const without = await connect(svc, { key: null });
    expect(without.api.capabilities.needsApiKey).toBe(true);
    const withKey = await connect(svc, { key: 'tok-9' });
    expect(withKey.api).toBeInstanceOf(V2Client);
    const { snapshot } = await run(withKey, sampler());
    expect(snapshot.phase).toBe('succeeded');
  });
});

describe('a self-hosted proxy as it was seen to answer (proxy-observed.md)', () => {
  it('takes null times, a placeholder progress, token output ids and no running event, and reports what really happened to a cancel it could not carry out', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only', v2ProxyQuirks: true });
    const c = await connect(svc);
    const { submitted, snapshot } = await run(c, sampler(4, 500));
    expect(snapshot.phase).toBe('succeeded');
    expect(snapshot.outputs).toHaveLength(1);
    expect(snapshot.outputs[0]!.subfolder).toMatch(/^asset:[\w-]+\.[\w-]+$/);
    const job = await (c.api as V2Client).getJobResource(submitted.promptId);
    expect(job).toMatchObject({ started_at: null, completed_at: null });
    const file = await c.api.download(snapshot.outputs[0]!, work());
    expect(readFileSync(file.path).subarray(1, 4).toString()).toBe('PNG');

    // An older server behind the proxy cannot cancel one job: the proxy says "canceling", the job runs on.
    svc.v2!.faults.ignoreCancels(true);
    const long = await submitJob(
      { api: c.api, jobs: c.jobs, clientId: c.events.clientId },
      { workflow: sampler(6, 1500), workflowName: 'long', origin: 'cli' },
    );
    const end = c.tracker.track(long.promptId).waitForEnd({ timeoutMs: 20_000 });
    await c.api.stopJob(long.promptId);
    expect((await end).phase).toBe('succeeded');
    expect(svc.stats.submissions.get(long.promptId)).toBe(1);
  });
});

describe('restart reconciliation on v2', () => {
  it('leaves a send journaled under its key to be sent again, never judging it "never submitted"', async () => {
    const svc = await SURFACES['v2-only']();
    const c = await connect(svc);
    await c.jobs.recordSubmitting({ promptId: 'key-of-a-send', serverKind: 'local', baseUrl: svc.url, workflow: sampler(), workflowName: 'wf', origin: 'cli' });
    expect(await c.tracker.reconcile()).toEqual([]);
    expect(await c.jobs.get('key-of-a-send')).toMatchObject({ phase: 'submitting' });
  });
});

describe('one retry layer for a send without an answer (jobs/submit-v2.ts)', () => {
  /** A connection whose requests wait at most `timeoutMs` for an answer. */
  async function quick(svc: DemoService, timeoutMs: number): Promise<ConnectedService & { jobs: JobStore }> {
    const connected = await connectService({ kind: svc.apiKey ? 'cloud' : 'local', baseUrl: svc.url }, { apiKey: () => svc.apiKey, timeoutMs });
    const store = await Store.open(':memory:');
    cleanups.push(async () => {
      await connected.events.dispose();
      await store.close();
    });
    return { ...connected, jobs: await JobStore.open(store) };
  }

  /** Submits through the single pipeline; what it threw, or what it answered. */
  function submitted(c: ConnectedService & { jobs: JobStore }, workflowName: string): Promise<unknown> {
    return submitJob({ api: c.api, jobs: c.jobs, clientId: c.events.clientId }, { workflow: sampler(), workflowName, origin: 'cli' }).catch((e: unknown) => e);
  }

  it.each(Object.keys(SURFACES) as Surface[])(
    '%s: a server silent past the deadline after making the job gets one more send under the key, never a second job',
    async (surface) => {
      const svc = await SURFACES[surface]();
      const c = await quick(svc, 400);
      svc.v2!.faults.holdSubmitAnswers(3000);
      const outcome = await submitted(c, 'silent');
      svc.v2!.faults.holdSubmitAnswers(0);
      // The silent send, then exactly one more under the same key (refused as a reuse): two sends, one job.
      expect(svc.v2!.stats.submitRequests).toBe(2);
      expect([...svc.v2!.stats.jobsByKey.values()]).toEqual([1]);
      const key = [...svc.v2!.stats.jobsByKey.keys()][0]!;
      if (surface === 'v2-only') {
        // The proxy lists its jobs: the job is found by its key and journaled under its own id.
        const jobId = (outcome as { promptId: string }).promptId;
        expect(jobId).not.toBe(key);
        expect(await c.jobs.get(jobId)).toMatchObject({ phase: 'pending' });
      } else {
        expect(outcome).toBeInstanceOf(SendMayHaveRunError);
        expect(await c.jobs.get(key)).toMatchObject({ phase: 'failed', rawStatus: 'may_exist' });
      }
    },
  );

  it('a send whose connection drops every time goes at most three times, and stays journaled for the next start', async () => {
    const svc = await SURFACES['v2-only']();
    const c = await quick(svc, 5000);
    svc.v2!.faults.dropSubmitsBeforeCreating(100);
    const failure = await submitted(c, 'dropped');
    svc.v2!.faults.dropSubmitsBeforeCreating(0);
    expect(failure).toMatchObject({ kind: 'network' });
    // Three sends in all: the transport does not retry the POST on top of the submit's own resends.
    expect(svc.v2!.stats.submitRequests).toBe(3);
    expect(svc.v2!.stats.jobsByKey.size).toBe(0);
    const [row] = await c.jobs.listInFlight();
    expect(row).toMatchObject({ phase: 'submitting', workflowName: 'dropped' });
  });
});

describe('sends left unanswered by an earlier process (resendUnanswered)', () => {
  it('sends each again under its key, except those a hot folder still holds and settles itself', async () => {
    const svc = await SURFACES['v2-only']();
    const connected = await connectService({ kind: 'local', baseUrl: svc.url }, { apiKey: () => null });
    const store = await Store.open(':memory:');
    cleanups.push(async () => {
      await connected.events.dispose();
      await store.close();
    });
    const jobs = await JobStore.open(store, { heldSends: async () => new Set(['key-held-by-folder']) });
    const row = { serverKind: 'local' as const, baseUrl: svc.url, workflow: sampler(), workflowName: 'left' };
    await jobs.recordSubmitting({ ...row, promptId: 'key-held-by-folder', origin: 'hot-folder' });
    await jobs.recordSubmitting({ ...row, promptId: 'key-of-the-window', origin: 'window' });
    const outcomes = await resendUnanswered({ api: connected.api, jobs, clientId: connected.events.clientId });
    expect(outcomes).toEqual([{ key: 'key-of-the-window', kind: 'accepted', jobId: expect.any(String) }]);
    expect([...svc.v2!.stats.jobsByKey.keys()]).toEqual(['key-of-the-window']);
    expect(await jobs.get('key-held-by-folder')).toMatchObject({ phase: 'submitting' });
    // Sent once more, the accepted one is not sent again.
    expect(await resendUnanswered({ api: connected.api, jobs, clientId: connected.events.clientId })).toEqual([]);
    expect(svc.v2!.stats.submitRequests).toBe(1);
  });
});

// The app core on Comfy API v2, against the real demo service in its two v2 modes: a v2-only
// deployment (served as a self-hosted proxy without a token: no node definitions, no queue) and
// the cloud with v1 beside v2. Through the core's own calls: the connection is found by discovery,
// inputs go up as assets once, runs go through the single pipeline, one job is cancelled alone,
// previews and outputs arrive, a job says how long the server keeps it, and a send an earlier
// process left unanswered is sent again under its key at start, never as a second job.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventName, EventPayload, JobSnapshotView } from '@shared/ipc/contract';
import type { AppEvent } from '@main/app/event-hub';
import { dataPaths } from '@main/config/data-dir';
import { JobStore } from '@main/jobs/job-store';
import { Store } from '@main/store/store';
import type { DemoService } from '../../src/main/demo';
import { demoCoreInTemp, failure, ok, type DemoCore } from '../support/demo-core';
import { startDemo } from '../v2/support';

const KEY = 'v2-app-key-5e0c2a9d41b7';
const EXAMPLE = readFileSync(join(import.meta.dirname, '../../resources/demo/example.png'));

const cores: DemoCore[] = [];
afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
});

function sampler(prompt: string, steps: number, delayMs: number): string {
  return JSON.stringify({
    '3': {
      class_type: 'DemoSampler',
      inputs: { prompt, seed: 7, steps, width: 32, height: 32, cfg: 7, sampler_name: 'euler', delay_ms: delayMs, fail_at_step: 0 },
    },
    '9': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'v2app' } },
  });
}

function invert(image: string): string {
  return JSON.stringify({
    '1': { class_type: 'LoadImage', inputs: { image } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'v2inv' } },
  });
}

function payloads<E extends EventName>(events: AppEvent[], name: E): EventPayload<E>[] {
  return events.filter((e) => e.name === name).map((e) => e.payload as EventPayload<E>);
}

async function waitFor<E extends EventName>(events: AppEvent[], name: E, test: (p: EventPayload<E>) => boolean, ms = 20_000): Promise<EventPayload<E>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = payloads(events, name).find(test);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${name} event as expected within ${ms} ms; last: ${JSON.stringify(payloads(events, name).slice(-3))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const ended = (events: AppEvent[], promptId: string): Promise<JobSnapshotView> =>
  waitFor(events, 'job.update', (j) => j.promptId === promptId && ['succeeded', 'failed', 'cancelled'].includes(j.phase));

/** Cancels the running job `a`: it ends cancelled, `b` goes on to run (never stopped with it), then `b` is cancelled too. */
async function cancelOneThenTheOther(c: DemoCore, a: string, b: string): Promise<void> {
  expect(await ok(c.core, 'jobs.cancel', { promptId: a })).toEqual({ cancelled: true });
  expect(await ended(c.events, a)).toMatchObject({ phase: 'cancelled' });
  await waitFor(c.events, 'job.update', (j) => j.promptId === b && j.phase === 'running');
  expect(payloads(c.events, 'job.update').some((j) => j.promptId === b && j.phase === 'cancelled')).toBe(false);
  expect(await ok(c.core, 'jobs.cancel', { promptId: b })).toEqual({ cancelled: true });
  expect(await ended(c.events, b)).toMatchObject({ phase: 'cancelled' });
}

/** A core whose active profile is `svc`: a proxy profile for a v2-only demo, a cloud one (with its key) for the cloud's. */
async function coreOn(svc: DemoService, before?: (dataDir: string) => Promise<void>): Promise<DemoCore & { profileId: string }> {
  const c = demoCoreInTemp('flowdeck-core-v2-');
  cores.push(c);
  await before?.(c.dataDir);
  await c.core.start();
  const cloud = svc.v2?.mode === 'beside';
  const profile = await ok(c.core, 'profiles.save', {
    name: cloud ? 'Cloud v2' : 'Deployment',
    kind: cloud ? 'cloud' : 'proxy',
    baseUrl: svc.url,
    select: true,
  });
  if (cloud) await ok(c.core, 'key.save', { profileId: profile.id, key: KEY });
  await waitFor(c.events, 'connection.state', (s) => s.profileId === profile.id && s.state === 'connected');
  return { ...c, profileId: profile.id };
}

describe('the app on a v2-only deployment (no node definitions, no queue)', () => {
  it('connects by discovery, uploads an input once as an asset, runs it, and shows its outputs, preview and retention', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const c = await coreOn(svc);
    const test = await ok(c.core, 'connection.test');
    expect(test).toMatchObject({ reachable: true, problem: null, nodeCount: null, message: expect.stringContaining('Comfy API v2') });
    // No node definitions here: said plainly, not as a failure (the form follows the workflow).
    expect(await ok(c.core, 'nodes.definitions')).toEqual({ profileId: c.profileId, classes: {}, none: true });

    const first = (await ok(c.core, 'upload.image', { name: 'photo.png', bytes: new Uint8Array(EXAMPLE) }))!;
    expect(first.inputValue).toMatch(/^core\/ASSET:/);
    const again = (await ok(c.core, 'upload.image', { name: 'photo.png', bytes: new Uint8Array(EXAMPLE) }))!;
    expect(again.inputValue).toBe(first.inputValue);
    // The bytes crossed once; the second time the server was asked whether it had them.
    expect(svc.v2!.stats.assetUploads).toBe(1);
    expect(svc.v2!.stats.byHashChecks + svc.v2!.stats.fromHash).toBeGreaterThanOrEqual(1);
    // The server's copy of the input reads back by its asset reference (a thumbnail, "Paint mask").
    const copy = await ok(c.core, 'input.fetch', { name: first.name, subfolder: first.subfolder, type: 'input' });
    expect(Buffer.from(copy.bytes).equals(EXAMPLE)).toBe(true);

    const { promptIds } = await ok(c.core, 'run.submit', { workflowJson: invert(first.inputValue), label: 'invert.json' });
    const done = await ended(c.events, promptIds[0]!);
    expect(done).toMatchObject({ phase: 'succeeded', label: 'invert.json', profileId: c.profileId, error: null });
    expect(svc.v2!.stats.submitRequests).toBe(1);
    const out = done.outputs[0]!;
    const fetched = await ok(c.core, 'output.fetch', { promptId: promptIds[0]!, file: { filename: out.filename, subfolder: out.subfolder, type: out.type } });
    expect([...fetched.bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    // The server keeps the job and its outputs for a while, and says until when.
    const kept = await waitFor(c.events, 'job.update', (j) => j.promptId === promptIds[0] && typeof j.expiresAt === 'number');
    expect(kept.expiresAt!).toBeGreaterThan(Date.now());
    expect((await ok(c.core, 'jobs.list')).jobs.find((j) => j.promptId === promptIds[0])?.expiresAt).toBe(kept.expiresAt);

    // A sampler's previews (the event stream's `preview`) reach the preview stage.
    const sampled = await ok(c.core, 'run.submit', { workflowJson: sampler('previews', 6, 60) });
    await ended(c.events, sampled.promptIds[0]!);
    const preview = payloads(c.events, 'job.preview').find((p) => p.promptId === sampled.promptIds[0]);
    expect(preview).toMatchObject({ mime: expect.stringMatching(/^image\//), seq: 1 });
  });

  it('cancels one of two jobs alone: the other keeps running, and nobody is asked to stop all', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const c = await coreOn(svc);
    const a = (await ok(c.core, 'run.submit', { workflowJson: sampler('first', 120, 400) })).promptIds[0]!;
    const b = (await ok(c.core, 'run.submit', { workflowJson: sampler('second', 120, 400) })).promptIds[0]!;
    await waitFor(c.events, 'job.update', (j) => j.promptId === a && j.phase === 'running');
    // No server queue here: the queue is the app's own unfinished jobs.
    const queue = await ok(c.core, 'queue.get');
    expect([...queue.running, ...queue.pending].map((e) => e.promptId).sort()).toEqual([a, b].sort());
    expect(queue.ownJobsOnly).toBe(true);

    await cancelOneThenTheOther(c, a, b);
  });

  it('clears the waiting jobs it sent (no server queue to clear), leaving the running one', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const c = await coreOn(svc);
    const sent: string[] = [];
    for (const name of ['first', 'second', 'third']) sent.push((await ok(c.core, 'run.submit', { workflowJson: sampler(name, 120, 400) })).promptIds[0]!);
    await waitFor(c.events, 'job.update', (j) => sent.includes(j.promptId) && j.phase === 'running');
    const first = (await ok(c.core, 'queue.get')).running[0]!.promptId;
    const cleared = await ok(c.core, 'queue.clearPending');
    expect(cleared.running.map((e) => e.promptId)).toEqual([first]);
    for (const id of sent.filter((id) => id !== first)) expect(await ended(c.events, id)).toMatchObject({ phase: 'cancelled' });
    expect((await ok(c.core, 'jobs.list')).jobs.find((j) => j.promptId === first)).toMatchObject({ phase: 'running' });
    expect(await ok(c.core, 'jobs.cancel', { promptId: first })).toEqual({ cancelled: true });
    expect(await ended(c.events, first)).toMatchObject({ phase: 'cancelled' });
  });

  it('sends again at start what a crash left unanswered: one job per key, whether or not the first send arrived', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const workflow = JSON.parse(sampler('left over', 2, 20)) as Record<string, never>;
    const arrived = 'key-sent-and-arrived-0001';
    const lost = 'key-sent-but-lost-0002';
    // The first send of `arrived` made its job; the process died before reading the answer.
    const made = await fetch(`${svc.url}/api/v2/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': arrived },
      body: JSON.stringify({ workflow, metadata: `flowdeck-idempotency-key:${arrived}` }),
    });
    expect(made.status).toBe(201);
    // The journal as the crashed process left it: both intents `submitting` under their keys.
    const c = await coreOn(svc, (dataDir) => journalLeftOver(dataPaths(dataDir).database, svc.url, workflow, [arrived, lost]));
    const warned = (key: string) => c.logs.some((line) => line.includes(key));
    const deadline = Date.now() + 20_000;
    while (!(warned(arrived) && warned(lost)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const jobs = (await ok(c.core, 'jobs.list')).jobs;
    // One job per key on the server, each followed by the app to its end.
    expect(svc.v2!.stats.jobsByKey.get(arrived)).toBe(1);
    expect(svc.v2!.stats.jobsByKey.get(lost)).toBe(1);
    expect(jobs.filter((j) => j.label === 'left over.json')).toHaveLength(2);
    for (const job of jobs.filter((j) => j.label === 'left over.json')) expect(await ended(c.events, job.promptId)).toMatchObject({ phase: 'succeeded' });
  });
});

/** Writes `submitting` rows, as a process killed between send and answer leaves them. */
async function journalLeftOver(database: string, baseUrl: string, workflow: Record<string, never>, keys: string[]): Promise<void> {
  const store = await Store.open(database);
  const jobs = await JobStore.open(store);
  for (const key of keys)
    await jobs.recordSubmitting({ promptId: key, serverKind: 'local', baseUrl, clientId: null, workflow, workflowName: 'left over.json', origin: 'window' });
  await store.close();
}

describe('a self-hosted proxy profile with its server API beside it', () => {
  it('keeps the server API address through edits, and reads node definitions from it while jobs go through v2', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const server = await startDemo({ flavour: 'local' }, 0.05);
    const c = demoCoreInTemp('flowdeck-core-v2-proxy-');
    cores.push(c);
    await c.core.start();
    const saved = await ok(c.core, 'profiles.save', { name: 'Proxy', kind: 'proxy', baseUrl: svc.url, apiBaseUrl: `${server.url}/`, select: true });
    expect(saved).toEqual({ id: expect.any(String), name: 'Proxy', kind: 'proxy', baseUrl: svc.url, apiBaseUrl: server.url });
    // An edit that does not name it keeps it; a bad one is refused plainly.
    expect(await ok(c.core, 'profiles.save', { id: saved.id, name: 'My proxy', kind: 'proxy', baseUrl: svc.url })).toMatchObject({ apiBaseUrl: server.url });
    expect(await failure(c.core, 'profiles.save', { id: saved.id, name: 'My proxy', kind: 'proxy', baseUrl: svc.url, apiBaseUrl: 'not a url' })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('server API URL'),
    });
    await waitFor(c.events, 'connection.state', (s) => s.profileId === saved.id && s.state === 'connected');
    const definitions = await ok(c.core, 'nodes.definitions');
    expect(definitions.none).toBeUndefined();
    expect(definitions.classes.DemoSampler).toBeDefined();
    const { promptIds } = await ok(c.core, 'run.submit', { workflowJson: sampler('through the proxy', 2, 10) });
    expect(await ended(c.events, promptIds[0]!)).toMatchObject({ phase: 'succeeded' });
    expect(svc.v2!.stats.submitRequests).toBe(1);
    expect(server.stats.promptRequests).toBe(0);
  });
});

describe('the app on the cloud with v2 beside v1', () => {
  it('runs through v2, keeps node definitions and the queue from v1, and cancels the running job alone', async () => {
    const svc = await startDemo({ flavour: 'cloud', v2: 'beside', apiKey: KEY }, 0.05);
    const c = await coreOn(svc);
    expect((await ok(c.core, 'nodes.definitions')).classes.DemoSampler).toBeDefined();
    const upload = (await ok(c.core, 'upload.image', { name: 'photo.png', bytes: new Uint8Array(EXAMPLE) }))!;
    expect(upload.inputValue).toMatch(/^core\/ASSET:/);
    const run = await ok(c.core, 'run.submit', { workflowJson: invert(upload.inputValue) });
    expect(await ended(c.events, run.promptIds[0]!)).toMatchObject({ phase: 'succeeded' });
    expect(svc.v2!.stats.submitRequests).toBe(1);
    expect(svc.stats.promptRequests).toBe(0);

    const a = (await ok(c.core, 'run.submit', { workflowJson: sampler('one', 120, 400) })).promptIds[0]!;
    const b = (await ok(c.core, 'run.submit', { workflowJson: sampler('two', 120, 400) })).promptIds[0]!;
    await waitFor(c.events, 'job.update', (j) => j.promptId === a && j.phase === 'running');
    // The queue still comes from v1 here.
    expect((await ok(c.core, 'queue.get')).running.map((e) => e.promptId)).toContain(a);
    // v1's cancel of a running cloud job stops every running job of the account; v2 cancels the one.
    await cancelOneThenTheOther(c, a, b);
  });
});

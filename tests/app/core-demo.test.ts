// The app core against real servers: the built-in demo profile, and a "cloud" profile pointing at a
// demo service (cloud flavour) started here on 127.0.0.1. Every answer and every event the core
// produces is recorded, and at the end scanned for the API keys.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInput, CallName, CallResult, Envelope, EventPayload, IpcError, JobSnapshotView } from '@shared/ipc/contract';
import { encodeWire } from '@shared/ipc/wire';
import { createConnectFactory } from '@main/app/connect';
import { createAppCore, type AppCore, type StartDemo } from '@main/app/core';
import { createDemoStarter } from '@main/app/demo';
import type { AppEvent } from '@main/app/event-hub';
import { JsonSettingsStore } from '@main/config/json-settings';
import { SecretStoreUnavailableError, SessionSecretStore, type SecretStore } from '@main/config/secrets';
import { DemoService } from '../../src/main/demo';

const KEY = 'test-key-4f1c9b2e77d04a3c9e1f';
const WRONG_KEY = 'wrong-key-0a1b2c3d4e5f60718293';
const MAX_SEED = '18446744073709551615';

function samplerWorkflow(options: { seed?: string; steps?: number; delayMs?: number; prompt?: string } = {}): string {
  // Written as text on purpose: the seed is 2^64-1, which a JavaScript number cannot hold.
  return `{
    "3": {"class_type": "DemoSampler", "inputs": {"prompt": ${JSON.stringify(options.prompt ?? 'a lighthouse')}, "seed": ${options.seed ?? '42'},
      "steps": ${options.steps ?? 4}, "width": 64, "height": 64, "cfg": 7, "sampler_name": "euler", "delay_ms": ${options.delayMs ?? 100}, "fail_at_step": 0}},
    "9": {"class_type": "SaveImage", "inputs": {"images": ["3", 0], "filename_prefix": "Flowdeck"}}
  }`;
}

/** A core over a temporary data folder that records everything it answers and emits. */
class Recorder {
  readonly events: AppEvent[] = [];
  readonly answers: Envelope<unknown>[] = [];
  readonly logs: string[] = [];
  readonly demoKeys: string[] = [];
  readonly core: AppCore;
  readonly dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-core-'));
  private readonly waiters = new Set<() => void>();

  constructor(secrets: SecretStore = new SessionSecretStore()) {
    const starter = createDemoStarter({ timeScale: 0.05 });
    const startDemo: StartDemo = (options) => {
      this.demoKeys.push(options.apiKey);
      return starter(options);
    };
    this.core = createAppCore({
      settings: new JsonSettingsStore(this.dataDir),
      secrets,
      dataDir: this.dataDir,
      startDemo,
      connect: createConnectFactory(),
      version: '9.9.9',
      allowAnyPath: true,
      pollIntervalMs: 250,
      log: (level, message) => void this.logs.push(`${level} ${message}`),
    });
    this.core.onEvent((event) => {
      this.events.push(event);
      for (const wake of [...this.waiters]) wake();
    });
  }

  async call<N extends CallName>(name: N, input?: CallInput<N>): Promise<Envelope<CallResult<N>>> {
    const answer = (await this.core.invoke(name, input)) as Envelope<CallResult<N>>;
    this.answers.push(answer);
    return answer;
  }

  async ok<N extends CallName>(name: N, input?: CallInput<N>): Promise<CallResult<N>> {
    const answer = await this.call(name, input);
    if (!answer.ok) throw new Error(`${name} failed: ${answer.error.code} ${answer.error.message}`);
    return answer.value;
  }

  async fails<N extends CallName>(name: N, input?: CallInput<N>): Promise<IpcError> {
    const answer = await this.call(name, input);
    if (answer.ok) throw new Error(`${name} succeeded unexpectedly`);
    return answer.error;
  }

  payloads<E extends AppEvent['name']>(name: E): EventPayload<E>[] {
    return this.events.filter((e) => e.name === name).map((e) => e.payload as EventPayload<E>);
  }

  /** Resolves once an event satisfies `test` (checked on every new event), or fails after 15 s. */
  waitFor<E extends AppEvent['name']>(name: E, test: (payload: EventPayload<E>) => boolean): Promise<EventPayload<E>> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const hit = this.payloads(name).find(test);
        if (hit === undefined) return false;
        this.waiters.delete(wake);
        clearTimeout(timer);
        resolve(hit);
        return true;
      };
      const wake = (): void => void check();
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new Error(`no ${name} event matched within 15 s`));
      }, 15_000);
      this.waiters.add(wake);
      check();
    });
  }

  async ended(promptId: string): Promise<JobSnapshotView> {
    return this.waitFor('job.update', (j) => j.promptId === promptId && ['succeeded', 'failed', 'cancelled'].includes(j.phase));
  }

  async dispose(): Promise<void> {
    await this.core.dispose();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

describe('app core against a real demo service', () => {
  let service: DemoService;
  let r: Recorder;
  let cloudId = '';

  beforeAll(async () => {
    service = new DemoService({ flavour: 'cloud', port: 0, apiKey: KEY, timeScale: 0.05 });
    await service.start();
    r = new Recorder();
    await r.core.start();
  });

  afterAll(async () => {
    await r?.dispose();
    await service?.stop();
  });

  it('starts on the built-in demo profile and connects to it', async () => {
    const state = await r.ok('profiles.list');
    expect(state.profiles).toHaveLength(1);
    expect(state.profiles[0]).toMatchObject({ name: 'Demo', kind: 'demo', baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    expect(state.activeProfileId).toBe(state.profiles[0]!.id);
    await r.waitFor('connection.state', (s) => s.state === 'connected' && s.profileId === state.activeProfileId);
    expect(await r.ok('key.status')).toMatchObject({ isSet: true, storage: 'session' });
    expect(await r.ok('renderer.ready')).toEqual({ version: '9.9.9' });
  });

  it('adds a cloud profile, selects it, and reports its key status without the key', async () => {
    const profile = await r.ok('profiles.save', { name: 'Test cloud', kind: 'cloud', baseUrl: `${service.url}/`, select: true });
    cloudId = profile.id;
    expect(profile).toEqual({ id: expect.any(String), name: 'Test cloud', kind: 'cloud', baseUrl: service.url });
    await r.waitFor('profiles.changed', (p) => p.activeProfileId === cloudId);
    expect(await r.ok('key.status')).toEqual({ isSet: false, last4: null, storage: null });
    // Without a key the test still checks what it can (the server answers) and names what it skipped.
    expect(await r.ok('connection.test')).toMatchObject({
      reachable: true,
      keyAccepted: null,
      problem: 'no_key',
      message: expect.stringContaining('No API key'),
      skipped: expect.arrayContaining([expect.stringContaining('key check')]),
    });
    await r.waitFor('connection.state', (s) => s.profileId === cloudId && s.problem === 'no_key');

    const status = await r.ok('key.save', { key: KEY });
    expect(status).toEqual({ isSet: true, last4: KEY.slice(-4), storage: 'session' });
    expect(await r.ok('key.status', { profileId: cloudId })).toEqual(status);
  });

  it('tests the connection: reachable, key accepted, node types counted', async () => {
    const test = await r.ok('connection.test');
    expect(test).toMatchObject({ reachable: true, keyAccepted: true, subscriptionActive: null });
    expect(test.nodeCount).toBeGreaterThan(3);
    await r.waitFor('connection.state', (s) => s.profileId === cloudId && s.state === 'connected');
  });

  it('serves node definitions with 64-bit limits kept exact', async () => {
    const defs = await r.ok('nodes.definitions');
    expect(defs.profileId).toBe(cloudId);
    const sampler = defs.classes.DemoSampler;
    expect(sampler).toBeDefined();
    const seed = sampler!.inputs.find((i) => i.name === 'seed');
    expect(seed).toMatchObject({ kind: 'int', required: true, max: { bigint: MAX_SEED } });
    expect(defs.classes.SaveImage?.outputNode).toBe(true);
  });

  it('"Test connection" reads the definitions afresh, and the session keeps them (a file added since is offered)', async () => {
    const imageOptions = async (): Promise<unknown> => {
      const defs = await r.ok('nodes.definitions');
      return defs.classes.LoadImage?.inputs.find((i) => i.name === 'image');
    };
    expect(await imageOptions()).not.toMatchObject({ options: expect.arrayContaining(['added-later.png']) });
    writeFileSync(join(service.dataDir, 'input', 'added-later.png'), readFileSync(join(import.meta.dirname, '../../resources/demo/example.png')));
    // Cached: not yet offered.
    expect(await imageOptions()).not.toMatchObject({ options: expect.arrayContaining(['added-later.png']) });
    expect(await r.ok('connection.test')).toMatchObject({ reachable: true });
    expect(await imageOptions()).toMatchObject({ options: expect.arrayContaining(['added-later.png']) });
  });

  it('parses workflows: API format exactly, UI format converted, bad JSON located, unknown classes listed', async () => {
    const api = await r.ok('workflow.parse', { text: samplerWorkflow({ seed: MAX_SEED }) });
    expect(api).toMatchObject({ format: 'api', nodeCount: 2, unknownClasses: [] });
    if (api.format === 'api') expect(api.workflowJson).toContain(`"seed":${MAX_SEED}`);
    // A UI-format graph is converted now; an empty one has nothing to run.
    expect(await r.ok('workflow.parse', { text: '{"nodes": [], "links": []}' })).toMatchObject({ format: 'conversion_failed', missingClasses: [] });
    expect(await r.ok('workflow.parse', { text: '{\n  "3": {\n    "class_type": "X",\n  }\n}' })).toMatchObject({
      format: 'invalid_json',
      position: { line: 4, column: expect.any(Number) },
    });
    expect(await r.ok('workflow.parse', { text: '{"1": {"class_type": "NoSuchNode", "inputs": {}}}' })).toMatchObject({
      format: 'api',
      unknownClasses: [{ nodeId: '1', classType: 'NoSuchNode' }],
    });
  });

  it('opens a workflow file by path and remembers it', async () => {
    const path = join(import.meta.dirname, '../../resources/workflows/text-to-image.json');
    const opened = await r.ok('workflow.open', { path });
    expect(opened).toMatchObject({ opened: true, name: 'text-to-image.json', path, parse: { format: 'api' } });
    expect((await r.ok('workflow.recent')).items[0]).toEqual({ path, name: 'text-to-image.json' });
    expect((await r.fails('workflow.open', { path: join(r.dataDir, 'missing.json') })).code).toBe('not_found');
  });

  it('uploads an image given as bytes and a mask for it, with thumbnails', async () => {
    const png = new Uint8Array(readFileSync(join(import.meta.dirname, '../../resources/demo/example.png')));
    const image = await r.ok('upload.image', { name: 'example.png', bytes: png });
    expect(image).toMatchObject({ type: 'input', inputValue: image!.name, thumbnailDataUrl: expect.stringMatching(/^data:image\/png;base64,/) });
    // The cloud stores it under a content hash; the answer keeps the name the user knows.
    expect(image!.name).not.toBe('example.png');
    expect(image!.originalName).toBe('example.png');
    const maskPng = new Uint8Array(readFileSync(join(import.meta.dirname, '../../resources/demo/example-mask.png')));
    const masked = await r.ok('upload.mask', { original: { name: image!.name, subfolder: image!.subfolder, type: image!.type }, maskPng });
    expect(masked.name).not.toBe('');
    expect(masked.originalName).toBeUndefined();
    expect(masked.thumbnailDataUrl).toMatch(/^data:image\/png;base64,/);
  });

  it('submits a workflow and follows the job to success, with outputs served as bytes', async () => {
    const { promptIds } = await r.ok('run.submit', { workflowJson: samplerWorkflow({ seed: MAX_SEED }), label: 'lighthouse.json' });
    expect(promptIds).toHaveLength(1);
    const promptId = promptIds[0]!;
    await r.waitFor('job.update', (j) => j.promptId === promptId && j.phase === 'running');
    const done = await r.ended(promptId);
    expect(done).toMatchObject({ phase: 'succeeded', label: 'lighthouse.json', profileId: cloudId, error: null });
    expect(done.outputs.length).toBeGreaterThan(0);
    const listed = await r.ok('jobs.list');
    expect(listed.jobs.find((j) => j.promptId === promptId)).toMatchObject({ phase: 'succeeded' });

    const out = done.outputs[0]!;
    const fetched = await r.ok('output.fetch', { promptId, file: { filename: out.filename, subfolder: out.subfolder, type: out.type } });
    expect(fetched.mime).toBe('image/png');
    expect([...fetched.bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    // A file the job did not produce is not fetched.
    expect((await r.fails('output.fetch', { promptId, file: { filename: 'other.png', subfolder: '', type: 'output' } })).code).toBe('not_found');
  });

  it('streams previews latest-wins: an unacknowledging consumer gets one frame per job, then only the latest', async () => {
    const { promptIds } = await r.ok('run.submit', { workflowJson: samplerWorkflow({ steps: 12, delayMs: 60, prompt: 'previews' }) });
    const promptId = promptIds[0]!;
    await r.ended(promptId);
    const frames = () => r.payloads('job.preview').filter((p) => p.promptId === promptId);
    // Twelve previews were sent by the server; with no acknowledgement only the first went out.
    expect(frames()).toHaveLength(1);
    const stats = r.core.previewStats(promptId);
    expect(stats).toMatchObject({ sent: 1, inFlight: true, waiting: true });
    // How many of the twelve reach the core before the job ends depends on the machine's load (the
    // job may end by a status poll first); what matters is that every later one replaced the pending one.
    expect(stats!.replaced).toBeGreaterThanOrEqual(2);
    expect(frames()[0]).toMatchObject({ mime: expect.stringMatching(/^image\//), seq: 1 });

    // The page acknowledges with a one-way note: checked against the call's schema, never answered.
    r.core.notify('preview.ack', { promptId, seq: '1' });
    r.core.notify('preview.nope', { promptId, seq: 1 });
    await expect.poll(() => r.logs.filter((line) => /preview\.ack note was refused|"preview\.nope" is not a Flowdeck note/.test(line))).toHaveLength(2);
    expect(frames()).toHaveLength(1);
    r.core.notify('preview.ack', { promptId, seq: 1 });
    await expect.poll(() => frames().length).toBe(2);
    expect(frames()[1]!.seq).toBe(2);
    // The job has ended and its last frame is acknowledged: nothing is kept for it.
    await r.ok('preview.ack', { promptId, seq: 2 });
    expect(r.core.previewStats(promptId)).toBeNull();
    expect(frames()).toHaveLength(2);
  });

  it('cancels a running job', async () => {
    const { promptIds } = await r.ok('run.submit', { workflowJson: samplerWorkflow({ steps: 200, delayMs: 400, prompt: 'slow' }) });
    const promptId = promptIds[0]!;
    await r.waitFor('job.update', (j) => j.promptId === promptId && j.phase === 'running');
    const queue = await r.ok('queue.get');
    expect(queue.running.map((e) => e.promptId)).toContain(promptId);
    expect(await r.ok('jobs.cancel', { promptId })).toEqual({ cancelled: true });
    expect(await r.ended(promptId)).toMatchObject({ phase: 'cancelled' });
  });

  it('reports a rejected workflow with the failing node and input', async () => {
    const bad = '{"3": {"class_type": "DemoSampler", "inputs": {"prompt": "x"}}, "9": {"class_type": "SaveImage", "inputs": {"images": ["3", 0]}}}';
    const error = await r.fails('run.submit', { workflowJson: bad });
    expect(error.code).toBe('invalid_workflow');
    expect(error.details).toMatchObject({
      nodeErrors: expect.arrayContaining([expect.objectContaining({ nodeId: '3', classType: 'DemoSampler', inputName: expect.any(String) })]),
    });
  });

  it('a key the server does not accept gives unauthorized', async () => {
    await r.ok('key.save', { key: WRONG_KEY });
    expect(await r.ok('connection.test')).toMatchObject({ reachable: true, keyAccepted: false, problem: 'key_rejected' });
    const error = await r.fails('run.submit', { workflowJson: samplerWorkflow() });
    expect(error.code).toBe('unauthorized');
    await r.waitFor('connection.state', (s) => s.profileId === cloudId && s.problem === 'key_rejected');
    await r.ok('key.save', { key: KEY });
  });

  it('removing the active server never makes a keyless cloud server active; hot folders say why they paused', async () => {
    const keyless = await r.ok('profiles.save', { name: 'No key yet', kind: 'cloud', baseUrl: service.url });
    const state = await r.ok('profiles.list');
    const demo = state.profiles.find((p) => p.kind === 'demo');
    await r.ok('profiles.remove', { id: demo!.id });
    expect((await r.ok('profiles.list')).activeProfileId).toBe(cloudId);
    const folder = await r.ok('hotFolders.save', {
      name: 'Scans',
      inputDir: join(r.dataDir, 'in'),
      outputDir: join(r.dataDir, 'out'),
      workflowJson: readFileSync(join(import.meta.dirname, '../../resources/workflows/invert-image.json'), 'utf8'),
      bind: '1.image',
    });
    const after = await r.ok('profiles.remove', { id: cloudId });
    // The only server left has no key: it stays inactive rather than silently failing every run.
    expect(after.profiles.map((p) => p.id)).toEqual([keyless.id]);
    expect(after.activeProfileId).toBeNull();
    await r.waitFor('hotFolders.changed', (f) => f.id === folder.id && f.status.paused && /"Test cloud" was removed/.test(f.status.pauseReason ?? ''));
  });

  it('never lets a key out: no answer, event or log line contains one', () => {
    const keys = [KEY, WRONG_KEY, ...r.demoKeys];
    expect(r.demoKeys.length).toBeGreaterThan(0);
    expect(r.answers.length).toBeGreaterThan(20);
    expect(r.events.length).toBeGreaterThan(10);
    const everything = [...r.answers.map((a) => encodeWire(a)), ...r.events.map((e) => encodeWire(e)), ...r.logs].join('\n');
    for (const key of keys) expect(everything.includes(key), `the key ending ${key.slice(-4)} leaked`).toBe(false);
  });
});

describe('app core without a keychain', () => {
  it('refuses to store a key with a clear keychain_unavailable error, and offers session-only', async () => {
    const broken: SecretStore = {
      kind: 'keychain',
      get: async () => {
        throw new SecretStoreUnavailableError('there is no D-Bus session to reach a Secret Service');
      },
      set: async () => {
        throw new SecretStoreUnavailableError('there is no D-Bus session to reach a Secret Service');
      },
      delete: async () => {
        throw new SecretStoreUnavailableError('there is no D-Bus session to reach a Secret Service');
      },
    };
    const r = new Recorder(broken);
    try {
      await r.core.start();
      const profile = await r.ok('profiles.save', { name: 'Cloud', kind: 'cloud', baseUrl: 'http://127.0.0.1:9' });
      expect(await r.ok('key.status', { profileId: profile.id })).toEqual({ isSet: false, last4: null, storage: null });
      const error = await r.fails('key.save', { profileId: profile.id, key: KEY });
      expect(error).toMatchObject({ code: 'keychain_unavailable', details: { canUseSessionOnly: true } });
      expect(error.message).toMatch(/D-Bus/);
      expect(error.message).toMatch(/session/);
      expect(await r.ok('key.status', { profileId: profile.id })).toMatchObject({ isSet: false });
      expect(await r.ok('key.save', { profileId: profile.id, key: KEY, sessionOnly: true })).toEqual({ isSet: true, last4: KEY.slice(-4), storage: 'session' });
      expect(JSON.stringify(r.answers)).not.toContain(KEY);
    } finally {
      await r.dispose();
    }
  });
});

// The library calls through the app core, over the built-in demo service: two real jobs (an image,
// then a video and an audio file), their outputs downloaded into the library, then listed,
// searched, filtered, described, read, served as media (ranges, HEAD, thumbnails) and deleted
// into a trash folder; library.changed events arrive coalesced.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallName, CallResult, EventPayload, IpcError } from '@shared/ipc/contract';
import { parseJsonExact } from '@shared/json';
import { createConnectFactory } from '@main/app/connect';
import { createAppCore, type AppCore } from '@main/app/core';
import type { MediaResponse } from '@main/app/library-media-server';
import { JsonSettingsStore } from '@main/config/json-settings';
import { SessionSecretStore } from '@main/config/secrets';
import { DemoService } from '../../src/main/demo';

const IMAGE_WORKFLOW = `{
  "3": {"class_type": "DemoSampler", "inputs": {"prompt": "a lighthouse at dusk", "seed": 18446744073709551615, "steps": 2, "width": 64, "height": 48, "cfg": 7, "sampler_name": "euler", "delay_ms": 10}},
  "9": {"class_type": "SaveImage", "inputs": {"images": ["3", 0], "filename_prefix": "Flowdeck"}}
}`;
const MEDIA_WORKFLOW = `{
  "1": {"class_type": "DemoSampler", "inputs": {"prompt": "waves on a beach", "seed": 3, "steps": 2, "width": 32, "height": 32, "cfg": 7, "sampler_name": "euler", "delay_ms": 10}},
  "3": {"class_type": "DemoVideo", "inputs": {"image": ["1", 0], "frames": 6, "fps": 12}},
  "4": {"class_type": "DemoAudio", "inputs": {"seconds": 0.5, "frequency": 220}}
}`;

let core: AppCore;
let dataDir: string;
let trashDir: string;
let demo: DemoService | null = null;
const changes: EventPayload<'library.changed'>[] = [];

type Outcome<N extends CallName> = { ok: true; value: CallResult<N> } | { ok: false; error: IpcError };
async function call<N extends CallName>(name: N, input?: unknown): Promise<Outcome<N>> {
  return (await core.invoke(name, input)) as Outcome<N>;
}
async function value<N extends CallName>(name: N, input?: unknown): Promise<CallResult<N>> {
  const result = await call(name, input);
  if (!result.ok) throw new Error(`${name} failed: ${result.error.code}: ${result.error.message}`);
  return result.value;
}

async function bodyOf(response: MediaResponse): Promise<Buffer> {
  if (!response.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of response.body as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function runJob(workflowJson: string, label: string): Promise<string> {
  const done = new Promise<string>((resolve, reject) => {
    const off = core.onEvent((event) => {
      if (event.name !== 'job.update' || event.payload.label !== label) return;
      if (event.payload.phase === 'succeeded') {
        off();
        resolve(event.payload.promptId);
      } else if (event.payload.phase === 'failed' || event.payload.phase === 'cancelled') {
        off();
        reject(new Error(`job ${label} ended ${event.payload.phase}`));
      }
    });
  });
  expect(await call('run.submit', { workflowJson, label })).toMatchObject({ ok: true });
  return done;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-library-core-'));
  trashDir = join(dataDir, 'fake-trash');
  mkdirSync(trashDir);
  core = createAppCore({
    settings: new JsonSettingsStore(dataDir),
    secrets: new SessionSecretStore(),
    dataDir,
    startDemo: async ({ apiKey }) => {
      demo = new DemoService({ flavour: 'cloud', host: '127.0.0.1', port: 0, apiKey, timeScale: 0.05 });
      await demo.start();
      const running = demo;
      return { url: running.url, stop: () => running.stop() };
    },
    connect: createConnectFactory(),
    allowAnyPath: true,
    pollIntervalMs: 250,
    // A trash of its own: the file moves there, so the test sees where it went.
    libraryTrash: async (file) => renameSync(file, join(trashDir, basename(file))),
  });
  core.onEvent((event) => {
    if (event.name === 'library.changed') changes.push(event.payload);
  });
  await core.start();
  await core.invoke('renderer.ready', undefined);
  await runJob(IMAGE_WORKFLOW, 'lighthouse.json');
  await runJob(MEDIA_WORKFLOW, 'media.json');
  // The downloads follow the jobs: wait until the three files are in.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { items } = await value('library.list');
    if (items.length === 3 && items.every((i) => i.status === 'done')) break;
    if (Date.now() > deadline) throw new Error(`downloads did not finish: ${JSON.stringify(items.map((i) => [i.fileName, i.status, i.error]))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);

afterAll(async () => {
  await core?.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

async function itemOf(kind: 'image' | 'video' | 'audio'): Promise<CallResult<'library.list'>['items'][number]> {
  const { items } = await value('library.list', { type: kind });
  expect(items).toHaveLength(1);
  return items[0]!;
}

describe('library calls over a real job', () => {
  it('lists newest first with the total of the filter, searches and filters', async () => {
    const all = await value('library.list');
    expect(all.total).toBe(3);
    expect(all.items.map((i) => i.mediaKind).sort()).toEqual(['audio', 'image', 'video']);
    expect(all.items[2]!.workflowName).toBe('lighthouse.json');
    expect(all.items.every((i) => i.hasFile && i.serverUrl === demo!.url)).toBe(true);

    const page = await value('library.list', { limit: 1, offset: 1 });
    expect(page.items).toHaveLength(1);
    expect(page.total).toBe(3);
    expect(page.items[0]!.id).toBe(all.items[1]!.id);

    const found = await value('library.list', { query: 'lighthouse' });
    expect(found.total).toBe(1);
    expect(found.items.map((i) => i.mediaKind)).toEqual(['image']);
    expect((await value('library.list', { query: 'beach' })).total).toBe(2);
    expect((await value('library.list', { query: 'beach', type: 'audio' })).items.map((i) => i.mediaKind)).toEqual(['audio']);
    expect(await value('library.list', { query: 'lighthouse', type: 'video' })).toEqual({ items: [], total: 0 });
    expect((await value('library.list', { workflow: 'MEDIA.JSON' })).total).toBe(2);
    expect((await value('library.list', { since: Date.now() + 60_000 })).total).toBe(0);
    expect((await value('library.list', { until: Date.now() + 60_000 })).total).toBe(3);
    const profileId = all.items[0]!.profileId!;
    expect((await value('library.list', { server: profileId })).total).toBe(3);
    expect((await value('library.list', { server: 'http://elsewhere.example' })).total).toBe(0);

    const refused = await call('library.list', { limit: 0 });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('offers the facets: workflows with counts, servers labelled with the profile name', async () => {
    const facets = await value('library.facets');
    expect([...facets.workflows].sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'lighthouse.json', count: 1 },
      { name: 'media.json', count: 2 },
    ]);
    const { profiles } = await value('profiles.list');
    expect(facets.servers).toEqual([{ server: profiles[0]!.id, label: 'Demo', count: 3 }]);
  });

  it('describes an item with its workflow and inputs as exact JSON', async () => {
    const image = await itemOf('image');
    const detail = await value('library.get', { id: image.id });
    expect(detail).toMatchObject({ id: image.id, nodeId: '9', nodeClass: 'SaveImage', outputKey: 'images', sourceFile: null, status: 'done' });
    expect(detail.workflowJson).toContain('"seed": 18446744073709551615');
    const workflow = parseJsonExact(detail.workflowJson!) as Record<string, { inputs: Record<string, unknown> }>;
    expect(workflow['3']!.inputs['seed']).toBe(18446744073709551615n);
    expect(detail.inputsJson).toContain('18446744073709551615');
    expect(detail.promptText).toContain('a lighthouse at dusk');
    expect(detail.path!.startsWith(join(dataDir, 'library'))).toBe(true);
    expect(createHash('sha256').update(readFileSync(detail.path!)).digest('hex')).toBe(detail.sha256);

    expect(await call('library.get', { id: 999_999 })).toMatchObject({ ok: false, error: { code: 'not_found', message: expect.stringContaining('999999') } });
    expect(await call('library.get', { id: 0 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('gives the bytes of a finished file', async () => {
    const image = await itemOf('image');
    const detail = await value('library.get', { id: image.id });
    const { mime, bytes } = await value('library.bytes', { id: image.id });
    expect(mime).toBe('image/png');
    expect(Buffer.from(bytes).equals(readFileSync(detail.path!))).toBe(true);
    expect(await call('library.bytes', { id: 999_999 })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('says where the file is when it cannot open it (no desktop here)', async () => {
    const audio = await itemOf('audio');
    const detail = await value('library.get', { id: audio.id });
    const info = await value('library.info');
    expect(info).toEqual({
      libraryDir: join(dataDir, 'library'),
      mediaBase: '/media',
      canReveal: false,
      nextLibraryDir: join(dataDir, 'library'),
      fromEnvironment: false,
    });
    const refused = await call('library.reveal', { id: audio.id, action: 'folder' });
    expect(refused).toEqual({ ok: false, error: { code: 'invalid_input', message: `Opening files needs the desktop app; the file is at ${detail.path}` } });
  });

  it('serves files with ranges and HEAD, thumbnails cached, nothing else', async () => {
    const video = await itemOf('video');
    const detail = await value('library.get', { id: video.id });
    const onDisk = readFileSync(detail.path!);
    expect(onDisk.length).toBeGreaterThan(200);

    const whole = await core.serveMedia({ pathname: `/file/${video.id}`, method: 'GET', range: null });
    expect(whole.status).toBe(200);
    expect(whole.headers).toMatchObject({
      'Content-Type': video.mime!,
      'Content-Length': String(onDisk.length),
      'Accept-Ranges': 'bytes',
      'X-Content-Type-Options': 'nosniff',
    });
    expect(video.mime).toMatch(/^video\//);
    expect((await bodyOf(whole)).equals(onDisk)).toBe(true);

    const head = await core.serveMedia({ pathname: `/file/${video.id}`, method: 'HEAD', range: null });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(head.headers['Content-Length']).toBe(String(onDisk.length));

    const part = await core.serveMedia({ pathname: `/file/${video.id}`, method: 'GET', range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.headers).toMatchObject({ 'Content-Range': `bytes 100-199/${onDisk.length}`, 'Content-Length': '100' });
    expect((await bodyOf(part)).equals(onDisk.subarray(100, 200))).toBe(true);

    const tail = await core.serveMedia({ pathname: `/file/${video.id}`, method: 'GET', range: 'bytes=-10' });
    expect(tail.status).toBe(206);
    expect((await bodyOf(tail)).equals(onDisk.subarray(onDisk.length - 10))).toBe(true);

    const open = await core.serveMedia({ pathname: `/file/${video.id}`, method: 'GET', range: `bytes=${onDisk.length - 5}-` });
    expect(open.headers['Content-Range']).toBe(`bytes ${onDisk.length - 5}-${onDisk.length - 1}/${onDisk.length}`);
    expect((await bodyOf(open)).length).toBe(5);

    const beyond = await core.serveMedia({ pathname: `/file/${video.id}`, method: 'GET', range: `bytes=${onDisk.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers['Content-Range']).toBe(`bytes */${onDisk.length}`);

    expect((await core.serveMedia({ pathname: `/file/${video.id}`, method: 'POST', range: null })).status).toBe(405);
    expect((await core.serveMedia({ pathname: '/file/999999', method: 'GET', range: null })).status).toBe(404);
    expect((await core.serveMedia({ pathname: '/file/../../etc/passwd', method: 'GET', range: null })).status).toBe(404);
    expect((await core.serveMedia({ pathname: `/thumb/${video.id}`, method: 'GET', range: null })).status).toBe(404);

    const image = await itemOf('image');
    const thumb = await core.serveMedia({ pathname: `/thumb/${image.id}`, method: 'GET', range: null });
    expect(thumb.status).toBe(200);
    expect(thumb.headers['Content-Type']).toBe('image/jpeg');
    expect(thumb.headers['Cache-Control']).toContain('immutable');
    const jpeg = await bodyOf(thumb);
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const thumbDir = join(dataDir, 'library', '.thumbnails');
    const [thumbFile] = readdirSync(thumbDir).filter((n) => n.endsWith('.jpg'));
    const made = statSync(join(thumbDir, thumbFile!)).mtimeMs;
    await new Promise((r) => setTimeout(r, 30));
    const again = await core.serveMedia({ pathname: `/thumb/${image.id}`, method: 'GET', range: null });
    expect((await bodyOf(again)).equals(jpeg)).toBe(true);
    expect(statSync(join(thumbDir, thumbFile!)).mtimeMs).toBe(made);
  });

  it('announced each item in library.changed events, ending done', () => {
    const latest = new Map<number, string>();
    const added = new Set<number>();
    for (const change of changes) {
      for (const item of change.added) added.add(item.id);
      for (const item of [...change.added, ...change.updated]) latest.set(item.id, item.status);
    }
    expect(added.size).toBe(3);
    expect([...latest.values()]).toEqual(['done', 'done', 'done']);
  });

  it('deletes into the trash, reporting unknown ids per id', async () => {
    const image = await itemOf('image');
    const detail = await value('library.get', { id: image.id });
    const before = changes.length;
    const result = await value('library.delete', { ids: [image.id, 424_242] });
    expect(result.removed).toBe(1);
    expect(result.failed).toEqual([{ id: 424_242, message: expect.stringContaining('no library item 424242') }]);
    expect(existsSync(detail.path!)).toBe(false);
    expect(readFileSync(join(trashDir, basename(detail.path!))).length).toBe(detail.size);
    expect((await value('library.list')).total).toBe(2);
    expect(await call('library.get', { id: image.id })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect((await core.serveMedia({ pathname: `/file/${image.id}`, method: 'GET', range: null })).status).toBe(404);
    await expect.poll(() => changes.slice(before).some((c) => c.removed.includes(image.id))).toBe(true);
  });
});

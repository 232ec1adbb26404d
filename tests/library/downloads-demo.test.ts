// Downloads into the library against the real demo service on 127.0.0.1: a job followed by the
// tracker on the local flavour (/view answers 200) and the cloud flavour (302 to a signed URL,
// fetched without the key), expired signed URLs, server errors, duplicate content, thumbnails.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { sineWav } from '@main/demo/nodes/wav';
import { JobStore } from '@main/jobs/job-store';
import { Store } from '@main/store/store';
import { JobTracker } from '@main/jobs/tracker';
import { Library, type LibraryChange, type LibraryItem, type LibraryServer } from '../../src/main/library';
import { EventsSocket } from '@main/service/events-socket';
import type { ServiceClient } from '@main/service/client';
import type { OutputFile, Workflow } from '@main/service/types';
import { dateFolder, filesUnder, QUICK_RETRY, quickClient } from './support/helpers';

const services = {
  cloud: new DemoService({ flavour: 'cloud', timeScale: 0.05 }),
  local: new DemoService({ flavour: 'local', timeScale: 0.05 }),
};

let dir: string;
let store: Store;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  await Promise.all([services.cloud.start(), services.local.start()]);
});

afterAll(async () => {
  await Promise.all([services.cloud.stop(), services.local.stop()]);
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-libdl-'));
  store = await Store.open(join(dir, 'flowdeck.sqlite'));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await store.close();
  await rm(dir, { recursive: true, force: true });
  services.cloud.faults.reset();
  services.local.faults.reset();
});

function serverOf(flavour: 'cloud' | 'local'): LibraryServer {
  return { profileId: `profile-${flavour}`, kind: flavour, baseUrl: services[flavour].url };
}

async function openLibrary(api: ServiceClient, root = join(dir, 'library')): Promise<Library> {
  const library = await Library.open({ store, root, source: (server) => (server.baseUrl === api.profile.baseUrl ? api : null), retry: QUICK_RETRY });
  await library.start();
  cleanups.push(() => library.dispose());
  return library;
}

function samplerWorkflow(prompt: string): Workflow {
  return {
    '1': {
      class_type: 'DemoSampler',
      inputs: { prompt, seed: 7, steps: 2, width: 32, height: 24, cfg: 7, sampler_name: 'euler', delay_ms: 10, fail_at_step: 0 },
    },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'library/test' } },
  };
}

function sha(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function pngBytes(width: number, height: number, rgba: [number, number, number, number]): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < png.data.length; i += 4) png.data.set(rgba, i);
  return PNG.sync.write(png);
}

/** Registers `bytes` as an output file of the demo service and returns its output reference. */
async function demoOutput(flavour: 'cloud' | 'local', name: string, bytes: Uint8Array, key = 'images'): Promise<OutputFile> {
  const source = join(dir, `src-${Math.random().toString(36).slice(2)}`);
  await writeFile(source, bytes);
  const ref = await services[flavour].addOutputFile(source, name);
  return { ...ref, node: '9', key };
}

describe.each(['local', 'cloud'] as const)('a job on the %s demo service', (flavour) => {
  it('lands in the library: streamed, hashed, dated folder, safe name, image size, events', async () => {
    const service = services[flavour];
    const api = quickClient(flavour, service.url, service.apiKey);
    const events = new EventsSocket(api.profile, { apiKey: () => service.apiKey, backoff: { minMs: 50, maxMs: 200 } });
    const tracker = new JobTracker({ api, events, jobs: await JobStore.open(store), pollIntervalMs: 100, timeoutMs: 15_000 });
    cleanups.push(async () => {
      await tracker.dispose();
      await events.dispose();
    });
    events.start();
    const library = await openLibrary(api);
    const changes: LibraryChange[] = [];
    library.onChange((c) => changes.push(c));
    const storageBefore = service.stats.storageRequests;

    const workflow = samplerWorkflow('a lighthouse at dusk');
    const { promptId } = await api.submit(workflow, { clientId: events.clientId });
    const snapshot = await tracker.track(promptId, { workflow, workflowName: 'sampler' }).waitForEnd();
    expect(snapshot.phase).toBe('succeeded');
    const recorded = await library.record(snapshot, { server: serverOf(flavour), workflow });
    expect(recorded).toHaveLength(1);
    const [item] = await library.whenSettled(recorded.map((i) => i.id));

    expect(item).toMatchObject({
      status: 'done',
      attempts: 1,
      error: null,
      retryAt: null,
      mediaKind: 'image',
      mime: 'image/png',
      width: 32,
      height: 24,
      nodeClass: 'SaveImage',
      createdAt: snapshot.trackedAt,
    });
    expect(item!.promptText).toBe('a lighthouse at dusk');
    const bytes = await readFile(item!.path!);
    expect(item!.size).toBe(bytes.length);
    expect(item!.sha256).toBe(sha(bytes));
    // The same bytes the server holds.
    const original = await readFile(join(service.dataDir, 'output', flavour === 'local' ? 'library' : '', item!.file.filename));
    expect(sha(original)).toBe(item!.sha256);
    // <library>/YYYY/MM/DD/<server's base name>: nothing else, nothing half-written.
    expect(filesUnder(join(dir, 'library'))).toEqual([`${dateFolder(snapshot.trackedAt)}/${item!.file.filename}`]);
    expect(item!.path).toBe(join(dir, 'library', ...dateFolder(snapshot.trackedAt).split('/'), item!.file.filename));

    if (flavour === 'cloud') {
      expect(service.stats.storageRequests).toBeGreaterThan(storageBefore);
      expect(service.stats.storageRequestsWithKey).toBe(0);
    }
    // Announced: added, then downloading, then done.
    await expect
      .poll(() => changes.map((c) => (c.type === 'removed' ? 'removed' : `${c.type}:${c.item.status}`)))
      .toEqual(['added:pending', 'updated:downloading', 'updated:done']);
  });

  it('stores duplicate content once and numbers a different file with the same name', async () => {
    const service = services[flavour];
    const api = quickClient(flavour, service.url, service.apiKey);
    const library = await openLibrary(api);
    const red = pngBytes(4, 4, [255, 0, 0, 255]);
    const blue = pngBytes(4, 4, [0, 0, 255, 255]);
    const at = new Date(2026, 10, 21, 12).getTime();
    // One after another: which of two concurrent downloads is placed first (and so keeps the plain
    // name) is up to the network, and this test is about what the library does with each outcome.
    const settle = async (promptId: string, name: string, bytes: Uint8Array): Promise<LibraryItem> => {
      const [recorded] = await library.record({ promptId, outputs: [await demoOutput(flavour, name, bytes)] }, { server: serverOf(flavour), createdAt: at });
      const [item] = await library.whenSettled([recorded!.id]);
      return item!;
    };
    const items = [await settle('dup-1', 'same.png', red), await settle('dup-2', 'copy.png', red), await settle('dup-3', 'same.png', blue)];
    expect(items.map((i) => i.status)).toEqual(['done', 'done', 'done']);
    const [a, b, c] = items as [LibraryItem, LibraryItem, LibraryItem];
    expect(b.path).toBe(a.path);
    expect(b.sha256).toBe(a.sha256);
    expect(c.sha256).not.toBe(a.sha256);
    expect(filesUnder(join(dir, 'library'))).toEqual(['2026/11/21/same (1).png', '2026/11/21/same.png']);
    expect(c.path).toBe(join(dir, 'library', '2026', '11', '21', 'same (1).png'));

    // Deleting one of two items sharing a file keeps the file; deleting the last one trashes it.
    const trashed: string[] = [];
    const lib2 = await Library.open({ store, root: join(dir, 'library'), source: () => null, trash: async (p) => void trashed.push(p) });
    cleanups.push(() => lib2.dispose());
    expect(await lib2.delete(a.id)).toEqual({ removed: true, trash: null, sharedBy: 1 });
    expect((await stat(b.path!)).isFile()).toBe(true);
    expect(trashed).toEqual([]);
  });

  it('reads an audio file: kind and duration from its header', async () => {
    const service = services[flavour];
    const api = quickClient(flavour, service.url, service.apiKey);
    const library = await openLibrary(api);
    const [recorded] = await library.record(
      { promptId: 'audio-1', outputs: [await demoOutput(flavour, 'tone.wav', sineWav(0.5, 440), 'audio')] },
      { server: serverOf(flavour) },
    );
    const [item] = await library.whenSettled([recorded!.id]);
    expect(item).toMatchObject({ status: 'done', mediaKind: 'audio', mime: 'audio/wav', durationMs: 500, width: null });
    expect(await library.thumbnail(item!.id)).toBeNull();
  });
});

describe('the cloud flavour: expired signed URLs', () => {
  /** Expires the signed URLs while the next storage request waits for its answer. */
  async function expireDuringNextStorageRequest(service: DemoService): Promise<void> {
    const before = service.stats.storageRequests;
    await expect.poll(() => service.stats.storageRequests, { interval: 5, timeout: 5000 }).toBeGreaterThan(before);
    service.faults.expireSignedUrls();
  }

  it('asks /api/view again when the signed URL expired, within one attempt', async () => {
    const service = services.cloud;
    const api = quickClient('cloud', service.url, service.apiKey);
    const library = await openLibrary(api);
    service.faults.setResponseDelay(150);
    const viewsBefore = service.stats.viewRequests;
    const [recorded] = await library.record(
      { promptId: 'exp-1', outputs: [await demoOutput('cloud', 'exp1.png', pngBytes(3, 3, [1, 2, 3, 255]))] },
      { server: serverOf('cloud') },
    );
    await expireDuringNextStorageRequest(service);
    const [item] = await library.whenSettled([recorded!.id]);
    expect(item).toMatchObject({ status: 'done', attempts: 1 });
    expect(service.stats.viewRequests - viewsBefore).toBe(2);
    expect(service.stats.storageRequestsWithKey).toBe(0);
  });

  it('retries later (with backoff) when the fresh URL expired too, and shows the failure meanwhile', async () => {
    const service = services.cloud;
    const api = quickClient('cloud', service.url, service.apiKey);
    const library = await openLibrary(api);
    const failures: LibraryItem[] = [];
    library.onChange((c) => {
      if (c.type === 'updated' && c.item.status === 'failed') failures.push(c.item);
    });
    service.faults.setResponseDelay(150);
    const [recorded] = await library.record(
      { promptId: 'exp-2', outputs: [await demoOutput('cloud', 'exp2.png', pngBytes(3, 3, [9, 9, 9, 255]))] },
      { server: serverOf('cloud') },
    );
    await expireDuringNextStorageRequest(service);
    await expireDuringNextStorageRequest(service);
    await expect.poll(() => failures.length, { timeout: 5000 }).toBeGreaterThan(0);
    service.faults.setResponseDelay(0);
    expect(failures[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failures[0]!.error).toMatch(/expired/i);
    expect(failures[0]!.retryAt).not.toBeNull();
    const [item] = await library.whenSettled([recorded!.id]);
    expect(item).toMatchObject({ status: 'done', attempts: 2, error: null });
    expect(service.stats.storageRequestsWithKey).toBe(0);
    // The failure shown to the person never carries the key.
    expect(JSON.stringify(failures)).not.toContain(service.apiKey!);
  });
});

describe('server failures', () => {
  it('retries after HTTP 500s that outlast the client retries, then completes', async () => {
    const service = services.local;
    const api = quickClient('local', service.url, null, 1);
    const library = await openLibrary(api);
    const output = await demoOutput('local', 'flaky.png', pngBytes(2, 2, [5, 5, 5, 255]));
    service.faults.fail500(3, '/view');
    const [recorded] = await library.record({ promptId: 'flaky-1', outputs: [output] }, { server: serverOf('local') });
    const [item] = await library.whenSettled([recorded!.id]);
    expect(item).toMatchObject({ status: 'done', attempts: 2, error: null });
    expect(filesUnder(join(dir, 'library')).filter((f) => !/^\d{4}\//.test(f))).toEqual([]);
  });
});

describe('thumbnails', () => {
  it('makes a JPEG once, within the size asked, cached under .thumbnails', async () => {
    const service = services.local;
    const api = quickClient('local', service.url, null);
    const library = await openLibrary(api);
    // Half transparent: flattened on white, never black.
    const [recorded] = await library.record(
      { promptId: 'thumb-1', outputs: [await demoOutput('local', 'big.png', pngBytes(300, 150, [0, 0, 0, 0]))] },
      { server: serverOf('local') },
    );
    const [item] = await library.whenSettled([recorded!.id]);
    const thumb = await library.thumbnail(item!.id, 64);
    expect(thumb).toMatchObject({ mime: 'image/jpeg', width: 64, height: 32 });
    expect(thumb!.path).toBe(join(dir, 'library', '.thumbnails', `${item!.sha256}-64.jpg`));
    const jpeg = await readFile(thumb!.path);
    expect([jpeg[0], jpeg[1], jpeg[2]]).toEqual([0xff, 0xd8, 0xff]);
    const { mtimeMs } = await stat(thumb!.path);
    await new Promise((r) => setTimeout(r, 20));
    expect(await library.thumbnail(item!.id, 64)).toEqual(thumb);
    expect((await stat(thumb!.path)).mtimeMs).toBe(mtimeMs);
    const decoded = (await import('jpeg-js')).default.decode(jpeg, { useTArray: true });
    expect(decoded.data[0]).toBeGreaterThan(240); // white, not black
    // Concurrent requests for a new size share one job; a smaller image is not upscaled.
    const [t1, t2] = await Promise.all([library.thumbnail(item!.id, 1000), library.thumbnail(item!.id, 1000)]);
    expect(t1).toEqual(t2);
    expect(t1).toMatchObject({ width: 300, height: 150 });
    expect(await library.thumbnail(9999)).toBeNull();
    // A file removed by hand: no thumbnail, no error.
    const other = await library.record(
      { promptId: 'thumb-2', outputs: [await demoOutput('local', 'gone.png', pngBytes(20, 20, [1, 1, 1, 255]))] },
      { server: serverOf('local') },
    );
    const [gone] = await library.whenSettled([other[0]!.id]);
    await rm(gone!.path!);
    expect(await library.thumbnail(gone!.id, 64)).toBeNull();
  });
});

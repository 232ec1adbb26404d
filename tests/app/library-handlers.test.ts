// The library handlers, media server and change events over a real Library and a scripted view
// server: a failed download retried, files outside the library folder refused (a tampered index
// row, a planted symbolic link), changes coalesced, open / show in folder through the desktop.
import { mkdtemp, rm, stat, symlink, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LibraryChangedView } from '@shared/ipc/library-contract';
import { createAppCore, type AppCore } from '@main/app/core';
import { AppFailure } from '@main/app/errors';
import { SessionSecretStore } from '@main/config/secrets';
import { idleConnect } from './fakes';
import { parseByteRange } from '@main/app/byte-range';
import type { DesktopActions } from '@main/app/desktop';
import { forwardLibraryChanges } from '@main/app/library-events';
import { createLibraryHandlers } from '@main/app/library-handlers';
import { serveLibraryMedia } from '@main/app/library-media-server';
import { JsonSettingsStore } from '@main/config/json-settings';
import { Store } from '@main/store/store';
import { Library, type LibraryItem, type LibraryServer } from '../../src/main/library';
import { QUICK_RETRY, quickClient } from '../library/support/helpers';
import { startViewServer, type ViewServer } from '../library/support/view-server';

let dir: string;
let store: Store;
let server: ViewServer;
let library: Library;
let libServer: LibraryServer;

function png(seed: number): Buffer {
  const image = new PNG({ width: 8, height: 8 });
  image.data.fill(seed);
  return PNG.sync.write(image);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-library-handlers-'));
  store = await Store.open(join(dir, 'flowdeck.sqlite'));
  server = await startViewServer();
  libServer = { profileId: 'p1', kind: 'local', baseUrl: server.url };
  library = await Library.open({ store, root: join(dir, 'library'), source: () => quickClient('local', server.url, null, 0), retry: QUICK_RETRY });
  await library.start();
});

afterEach(async () => {
  await library.dispose();
  await server.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function record(filenames: string[], promptId = `job-${filenames.join('-')}`): Promise<LibraryItem[]> {
  const items = await library.record(
    { promptId, outputs: filenames.map((filename) => ({ filename, subfolder: '', type: 'output', node: '9', key: 'images' })) },
    { server: libServer, workflowName: 'wf.json' },
  );
  return library.whenSettled(items.map((i) => i.id));
}

function handlers(desktop: DesktopActions | null = null, env: NodeJS.ProcessEnv = {}) {
  return createLibraryHandlers({
    library: () => library,
    desktop,
    mediaBase: 'flowdeck-media://library',
    profileName: (id) => (id === 'p1' ? 'My server' : null),
    folder: { dataDir: dir, settings: new JsonSettingsStore(dir), env },
  });
}

function tempCoreAt(dataDir: string): AppCore {
  return createAppCore({
    settings: new JsonSettingsStore(dataDir),
    secrets: new SessionSecretStore(),
    dataDir,
    startDemo: async () => ({ url: 'http://127.0.0.1:9', stop: async () => undefined }),
    connect: idleConnect,
  });
}

async function failure(promise: Promise<unknown>): Promise<AppFailure> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppFailure);
  return error as AppFailure;
}

describe('library handlers over a real library', () => {
  it('retries a failed download on request', async () => {
    server.plan('gone.png', ['not_found']);
    server.setFile('gone.png', png(7));
    const [failed] = await record(['gone.png']);
    expect(failed).toMatchObject({ status: 'failed', retryAt: null });
    const h = handlers();
    expect((await h['library.list']({})).items[0]).toMatchObject({ status: 'failed', hasFile: false, error: expect.stringContaining('404') });
    expect((await failure(h['library.bytes']({ id: failed!.id }))).message).toContain('not in the library yet: its download failed');

    const retried = await h['library.retry']({ id: failed!.id });
    expect(['pending', 'downloading', 'done']).toContain(retried.status);
    const [done] = await library.whenSettled([failed!.id]);
    expect(done).toMatchObject({ status: 'done' });
    expect(Buffer.from((await h['library.bytes']({ id: failed!.id })).bytes).equals(png(7))).toBe(true);
    expect((await failure(h['library.retry']({ id: 9999 }))).code).toBe('not_found');
  });

  it('labels servers with the profile name, else the address', async () => {
    server.setFile('a.png', png(1));
    await record(['a.png']);
    await library.record(
      { promptId: 'elsewhere', outputs: [{ filename: 'b.png', subfolder: '', type: 'output', node: '9', key: 'images' }] },
      { server: { profileId: null, kind: 'local', baseUrl: 'http://127.0.0.1:9' } },
    );
    const facets = await handlers()['library.facets'](undefined);
    expect(facets.servers).toEqual([
      { server: 'http://127.0.0.1:9', label: 'http://127.0.0.1:9', count: 1 },
      { server: 'p1', label: 'My server', count: 1 },
    ]);
    expect((await handlers()['library.list']({ server: 'http://127.0.0.1:9' })).total).toBe(1);
  });

  it('refuses a file whose index row was tampered to point outside the library folder', async () => {
    server.setFile('t.png', png(2));
    const [item] = await record(['t.png']);
    await writeFile(join(dir, 'secret.txt'), 'not yours');
    await store.run('UPDATE library_items SET path = ? WHERE id = ?', ['../secret.txt', item!.id]);
    expect((await serveLibraryMedia(library, { pathname: `/file/${item!.id}`, method: 'GET', range: null })).status).toBe(403);
    expect((await failure(handlers()['library.bytes']({ id: item!.id }))).message).toContain('outside the library folder');
  });

  it('refuses a file replaced by a symbolic link to elsewhere, and says so when the file is gone', async () => {
    server.setFile('s.png', png(3));
    const [item] = await record(['s.png']);
    const secret = join(dir, 'secret.png');
    await writeFile(secret, png(4));
    await unlink(item!.path!);
    await symlink(secret, item!.path!);
    const served = await serveLibraryMedia(library, { pathname: `/file/${item!.id}`, method: 'GET', range: null });
    expect(served.status).toBe(403);
    expect(served.body).toBeNull();
    expect((await failure(handlers()['library.bytes']({ id: item!.id }))).code).toBe('invalid_input');

    await unlink(item!.path!);
    expect((await serveLibraryMedia(library, { pathname: `/file/${item!.id}`, method: 'GET', range: null })).status).toBe(404);
    const gone = await failure(handlers()['library.bytes']({ id: item!.id }));
    expect(gone).toMatchObject({ code: 'not_found', message: expect.stringContaining('no longer in the library folder') });
  });

  it('serves a thumbnail once made even when its source is gone (cached on disk)', async () => {
    server.setFile('c.png', png(5));
    const [item] = await record(['c.png']);
    const first = await serveLibraryMedia(library, { pathname: `/thumb/${item!.id}`, method: 'GET', range: null });
    expect(first.status).toBe(200);
    first.body?.resume();
    await unlink(item!.path!);
    const second = await serveLibraryMedia(library, { pathname: `/thumb/${item!.id}`, method: 'HEAD', range: null });
    expect(second.status).toBe(200);
    expect(second.headers['Content-Type']).toBe('image/jpeg');
  });

  it('opens and shows files through the desktop, with its failure in plain words', async () => {
    server.setFile('d.png', png(6));
    const [item] = await record(['d.png']);
    const calls: string[] = [];
    const desktop: DesktopActions = {
      openPath: async (path) => {
        calls.push(`open ${path}`);
        if (calls.filter((c) => c.startsWith('open')).length > 1) throw new Error('No application is registered for this file');
      },
      showInFolder: async (path) => void calls.push(`show ${path}`),
      notify: () => undefined,
    };
    const h = handlers(desktop);
    expect(await h['library.info'](undefined)).toEqual({
      libraryDir: join(dir, 'library'),
      mediaBase: 'flowdeck-media://library',
      canReveal: true,
      nextLibraryDir: join(dir, 'library'),
      fromEnvironment: false,
    });
    expect(await h['library.reveal']({ id: item!.id, action: 'folder' })).toBeNull();
    expect(await h['library.reveal']({ id: item!.id, action: 'open' })).toBeNull();
    expect(calls).toEqual([`show ${item!.path}`, `open ${item!.path}`]);
    const refused = await failure(h['library.reveal']({ id: item!.id, action: 'open' }));
    expect(refused.message).toBe(`Could not open ${item!.path}: No application is registered for this file`);
  });

  it('refuses bytes of a file over 100 MB without reading it', async () => {
    server.setFile('big.png', png(8));
    const [item] = await record(['big.png']);
    // A sparse file: 101 MB on paper, nothing on disk.
    await truncate(item!.path!, 101 * 1024 * 1024);
    const refused = await failure(handlers()['library.bytes']({ id: item!.id }));
    expect(refused.message).toContain('at most 100.0 MB');
    expect((await stat(item!.path!)).size).toBe(101 * 1024 * 1024);
  });
});

describe('the library folder setting', () => {
  it('refuses what cannot be a library folder, saves one that can, effective from the next start', async () => {
    const h = handlers();
    expect((await failure(h['library.setFolder']({ path: 'relative/folder' }))).message).toContain('full path');
    await writeFile(join(dir, 'a-file'), 'x');
    expect((await failure(h['library.setFolder']({ path: join(dir, 'a-file') }))).message).toBe(
      `${join(dir, 'a-file')} is a file, not a folder. Choose a folder for the library.`,
    );
    expect((await failure(h['library.setFolder']({ path: join(dir, 'a-file', 'below') }))).message).toContain('Could not create the folder');

    const chosen = join(dir, 'Pictures', 'Flowdeck');
    const saved = await h['library.setFolder']({ path: `${chosen}/` });
    expect(saved).toEqual({
      libraryDir: join(dir, 'library'),
      nextLibraryDir: chosen,
      message: `New outputs go to ${chosen} from the next start of Flowdeck. Until then they go to ${join(dir, 'library')}; outputs already in the library stay where they are.`,
    });
    expect((await stat(chosen)).isDirectory()).toBe(true);
    expect(new JsonSettingsStore(dir).read().libraryDir).toBe(chosen);
    expect(await h['library.info'](undefined)).toMatchObject({ libraryDir: join(dir, 'library'), nextLibraryDir: chosen, fromEnvironment: false });

    const overridden = await handlers(null, { FLOWDECK_LIBRARY_DIR: join(dir, 'env-lib') })['library.setFolder']({ path: chosen });
    expect(overridden.message).toContain('FLOWDECK_LIBRARY_DIR is set');
    expect(overridden.nextLibraryDir).toBe(join(dir, 'env-lib'));

    const back = await h['library.setFolder']({ path: null });
    expect(back).toMatchObject({ nextLibraryDir: join(dir, 'library'), message: `The library folder stays ${join(dir, 'library')}.` });
    expect(new JsonSettingsStore(dir).read().libraryDir).toBeNull();
  });

  it('is the folder the core opens on its next start', async () => {
    const dataDir = join(dir, 'data');
    const chosen = join(dir, 'chosen-library');
    const first = tempCoreAt(dataDir);
    await first.start();
    expect(await first.invoke('library.setFolder', { path: chosen })).toMatchObject({ ok: true, value: { nextLibraryDir: chosen } });
    expect(await first.invoke('library.info', undefined)).toMatchObject({ ok: true, value: { libraryDir: join(dataDir, 'library') } });
    await first.dispose();
    const second = tempCoreAt(dataDir);
    await second.start();
    try {
      expect(await second.invoke('library.info', undefined)).toMatchObject({ ok: true, value: { libraryDir: chosen, nextLibraryDir: chosen } });
    } finally {
      await second.dispose();
    }
  });
});

describe('library.changed events', () => {
  it('coalesces a burst into one event with the latest state per item, and stops cleanly', async () => {
    const events: LibraryChangedView[] = [];
    const stop = forwardLibraryChanges(library, (payload) => events.push(payload), { windowMs: 1_000 });
    for (const name of ['e1.png', 'e2.png', 'e3.png']) server.setFile(name, png(9));
    const items = await record(['e1.png', 'e2.png', 'e3.png']);
    await expect.poll(() => events.length, { timeout: 10_000 }).toBe(1);
    // Three added (pending), then downloading and done each: nine changes, one event, latest state.
    expect(events[0]!.added.map((i) => i.id).sort()).toEqual(items.map((i) => i.id).sort());
    expect(events[0]!.added.every((i) => i.status === 'done' && i.hasFile)).toBe(true);
    expect(events[0]!.updated).toEqual([]);

    // Deleted after being announced: a removal. Added and removed within one window: nothing.
    await library.delete(items[0]!.id);
    server.setFile('e4.png', png(10));
    const [fleeting] = await record(['e4.png']);
    await library.delete(fleeting!.id);
    await expect.poll(() => events.length, { timeout: 10_000 }).toBe(2);
    expect(events[1]).toEqual({ added: [], updated: [], removed: [items[0]!.id] });

    stop();
    await library.delete(items[1]!.id);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(events).toHaveLength(2);
  });
});

describe('Range headers', () => {
  it('reads one range, ignores what it does not serve, and knows an unsatisfiable one', () => {
    expect(parseByteRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 });
    expect(parseByteRange('bytes=900-', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseByteRange('bytes=990-5000', 1000)).toEqual({ start: 990, end: 999 });
    expect(parseByteRange('bytes=-100', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseByteRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 });
    expect(parseByteRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=-0', 1000)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=0-', 0)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=0-1,5-9', 1000)).toBe('ignore');
    expect(parseByteRange('items=0-1', 1000)).toBe('ignore');
    expect(parseByteRange('bytes=9-2', 1000)).toBe('ignore');
    expect(parseByteRange('bytes=-', 1000)).toBe('ignore');
  });
});

describe('the CSP for library media', () => {
  it('lets images, video and audio come from the media scheme in Electron, and only from the page in the harness', async () => {
    const { contentSecurityPolicy } = await import('@main/app/csp');
    const electron = contentSecurityPolicy({ mediaSrc: 'flowdeck-media:' }).split('; ');
    expect(electron).toContain("img-src 'self' blob: data: flowdeck-media:");
    expect(electron).toContain("media-src 'self' blob: flowdeck-media:");
    expect(electron).toContain("connect-src 'none'");
    const harness = contentSecurityPolicy({ connectSrc: 'ws://127.0.0.1:1' }).split('; ');
    expect(harness).toContain("img-src 'self' blob: data:");
    expect(harness).toContain("media-src 'self' blob:");
  });
});

// Deleting library items: the file goes to the OS trash (the real `trash` package, pointed at a
// throw-away home and XDG data folder), or to the library's .trash folder when the OS trash fails;
// a download in progress is stopped; thumbnails go with their file.
import { mkdtempSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '@main/store/store';
import { Library, type LibraryChange, type LibraryServer, type TrashFunction } from '../../src/main/library';
import { filesUnder, QUICK_RETRY, quickClient } from './support/helpers';
import { startViewServer, type ViewServer } from './support/view-server';

// The trash package reads the home and XDG folders when it is first loaded (lazily, on the first
// delete): point both at a temporary folder on the same file system as the library.
const home = mkdtempSync(join(tmpdir(), 'flowdeck-libtrash-home-'));
process.env.HOME = home;
process.env.XDG_DATA_HOME = join(home, '.local', 'share');

let dir: string;
let store: Store;
let server: ViewServer;
let libServer: LibraryServer;
const libraries: Library[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(home, 'work-'));
  store = await Store.open(join(dir, 'flowdeck.sqlite'));
  server = await startViewServer();
  libServer = { profileId: 'p1', kind: 'local', baseUrl: server.url };
});

afterEach(async () => {
  for (const library of libraries.splice(0)) await library.dispose();
  await server.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

async function open(trash?: TrashFunction): Promise<Library> {
  const library = await Library.open({
    store,
    root: join(dir, 'library'),
    source: () => quickClient('local', server.url, null, 0),
    retry: QUICK_RETRY,
    ...(trash ? { trash } : {}),
  });
  await library.start();
  libraries.push(library);
  return library;
}

function png(seed: number): Buffer {
  const image = new PNG({ width: 8, height: 8 });
  image.data.fill(seed);
  return PNG.sync.write(image);
}

async function downloaded(library: Library, filename: string, bytes: Buffer) {
  server.setFile(filename, bytes);
  const [item] = await library.record(
    { promptId: `job-${filename}`, outputs: [{ filename, subfolder: '', type: 'output', node: '1', key: 'images' }] },
    { server: libServer },
  );
  const [done] = await library.whenSettled([item!.id]);
  expect(done?.status).toBe('done');
  return done!;
}

describe('delete', () => {
  it('moves the file to the OS trash, drops its thumbnails and its row, and says so', async () => {
    const library = await open();
    const item = await downloaded(library, 'keep-me.png', png(10));
    const thumb = await library.thumbnail(item.id, 32);
    expect(thumb).not.toBeNull();
    const changes: LibraryChange[] = [];
    library.onChange((c) => changes.push(c));

    expect(await library.delete(item.id)).toEqual({ removed: true, trash: 'os' });
    expect(await library.get(item.id)).toBeNull();
    expect(changes).toEqual([{ type: 'removed', id: item.id }]);
    expect(filesUnder(join(dir, 'library'))).toEqual([]);
    const trashFiles = join(home, '.local', 'share', 'Trash', 'files');
    const trashed = await readdir(trashFiles);
    expect(trashed).toHaveLength(1);
    expect(await readFile(join(trashFiles, trashed[0]!))).toEqual(png(10));
    const info = await readFile(join(home, '.local', 'share', 'Trash', 'info', `${trashed[0]}.trashinfo`), 'utf8');
    expect(decodeURI(info)).toContain(`Path=${item.path}`);
  });

  it("falls back to the library's .trash folder, with a note, when the OS trash fails", async () => {
    const logs: string[] = [];
    const library = await Library.open({
      store,
      root: join(dir, 'library'),
      source: () => quickClient('local', server.url, null, 0),
      retry: QUICK_RETRY,
      trash: async () => {
        throw new Error('no trash here');
      },
      log: (m) => logs.push(m),
    });
    libraries.push(library);
    const a = await downloaded(library, 'twice.png', png(1));
    expect(await library.delete(a.id)).toEqual({ removed: true, trash: 'library' });
    const b = await downloaded(library, 'twice.png', png(2));
    expect(await library.delete(b.id)).toEqual({ removed: true, trash: 'library' });
    expect(filesUnder(join(dir, 'library'))).toEqual(['.trash/README.txt', '.trash/twice (1).png', '.trash/twice.png']);
    expect(await readFile(join(dir, 'library', '.trash', 'twice.png'))).toEqual(png(1));
    expect(await readFile(join(dir, 'library', '.trash', 'README.txt'), 'utf8')).toMatch(/trash could not be used/);
    expect(logs.join('\n')).toContain('no trash here');
  });

  it('stops a download in progress and leaves nothing behind', async () => {
    const library = await open();
    server.setFile('slow.bin', Buffer.alloc(100_000, 3));
    server.plan('slow.bin', ['stall']);
    const stalled = server.stalled();
    const [item] = await library.record(
      { promptId: 'slow', outputs: [{ filename: 'slow.bin', subfolder: '', type: 'output', node: '1', key: 'images' }] },
      { server: libServer },
    );
    await stalled;
    expect(await library.delete(item!.id)).toEqual({ removed: true, trash: null });
    expect(await library.get(item!.id)).toBeNull();
    expect(await library.whenSettled([item!.id])).toEqual([]);
    expect(filesUnder(join(dir, 'library'))).toEqual([]);
  });
});

// Downloads that go wrong, against a scripted server on 127.0.0.1: a connection killed midway, a
// full disk, a file the server no longer has, a server that keeps failing, a download stopped by
// dispose(), and hostile file names. In every case no partial file reaches the library.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '@main/store/store';
import { Library, type DownloadSource, type LibraryItem, type LibraryServer } from '../../src/main/library';
import { ServiceClient } from '@main/service/client';
import { DEFAULT_LIMITS } from '@main/service/limits';
import type { OutputFile } from '@main/service/types';
import { dateFolder, filesUnder, QUICK_RETRY, quickClient } from './support/helpers';
import { startViewServer, type ViewServer } from './support/view-server';

let dir: string;
let store: Store;
let server: ViewServer;
let api: ServiceClient;
let libServer: LibraryServer;
const libraries: Library[] = [];

const AT = new Date(2026, 10, 21, 9, 30).getTime();
const BYTES = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 7) % 251));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-libfault-'));
  store = await Store.open(join(dir, 'flowdeck.sqlite'));
  server = await startViewServer();
  api = quickClient('local', server.url, null, 0);
  libServer = { profileId: null, kind: 'local', baseUrl: server.url };
});

afterEach(async () => {
  for (const library of libraries.splice(0)) await library.dispose();
  await server.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function open(source: DownloadSource | null = api, retry: Partial<typeof QUICK_RETRY> = QUICK_RETRY): Promise<Library> {
  const library = await Library.open({ store, root: join(dir, 'library'), source: () => source, retry });
  await library.start();
  libraries.push(library);
  return library;
}

function output(filename: string): OutputFile {
  return { filename, subfolder: '', type: 'output', node: '5', key: 'images' };
}

async function recordOne(library: Library, filename: string): Promise<LibraryItem> {
  const [item] = await library.record({ promptId: `job-${filename}`, outputs: [output(filename)] }, { server: libServer, createdAt: AT });
  return item!;
}

describe('interrupted downloads', () => {
  it('retries a connection killed midway and never leaves a partial file', async () => {
    server.setFile('cut.bin', BYTES);
    // The client fetches a broken body once more itself; two cuts make the first attempt fail.
    server.plan('cut.bin', ['truncate', 'truncate']);
    const library = await open();
    const failed: LibraryItem[] = [];
    library.onChange((c) => {
      if (c.type === 'updated' && c.item.status === 'failed') failed.push(c.item);
    });
    const item = await recordOne(library, 'cut.bin');
    const [done] = await library.whenSettled([item.id]);
    expect(done).toMatchObject({ status: 'done', attempts: 2, size: BYTES.length, error: null });
    expect(await readFile(done!.path!)).toEqual(BYTES);
    expect(server.requests.filter((r) => r === 'cut.bin')).toHaveLength(3);
    await expect.poll(() => failed.length).toBe(1);
    expect(failed[0]!.error).toMatch(/stopped after|ended after|broke/i);
    expect(filesUnder(join(dir, 'library'))).toEqual([`${dateFolder(AT)}/cut.bin`]);
  });

  it('stops a download on dispose without counting it, and the next library resumes it', async () => {
    server.setFile('slow.bin', BYTES);
    server.plan('slow.bin', ['stall']);
    const first = await open();
    const stalled = server.stalled();
    const item = await recordOne(first, 'slow.bin');
    await stalled;
    expect((await first.get(item.id))?.status).toBe('downloading');
    await first.dispose();
    expect(await first.get(item.id)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(filesUnder(join(dir, 'library'))).toEqual([]);

    const second = await open();
    expect(await second.resumePending()).toBe(1);
    const [done] = await second.whenSettled([item.id]);
    expect(done).toMatchObject({ status: 'done', attempts: 1 });
    expect(await readFile(done!.path!)).toEqual(BYTES);
  });
});

describe('failures shown per item', () => {
  it('reports a full disk (ENOSPC) and retries it', async () => {
    server.setFile('disk.bin', BYTES);
    let calls = 0;
    const fullOnce: DownloadSource = {
      async download(ref, destDir, options) {
        calls += 1;
        if (calls === 1) {
          // What the service client throws when the temp file cannot be written.
          const cause = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
          throw new Error(`Could not write ${destDir}/download.part-1: ENOSPC`, { cause });
        }
        return api.download(ref, destDir, options);
      },
    };
    const library = await open(fullOnce);
    const failures: LibraryItem[] = [];
    library.onChange((c) => {
      if (c.type === 'updated' && c.item.status === 'failed') failures.push(c.item);
    });
    const item = await recordOne(library, 'disk.bin');
    const [done] = await library.whenSettled([item.id]);
    expect(done).toMatchObject({ status: 'done', attempts: 2 });
    await expect.poll(() => failures.length).toBe(1);
    expect(failures[0]!.error).toMatch(/disk .*full \(ENOSPC\)/);
  });

  it('gives up at once on a file the server no longer has (404), until retry()', async () => {
    const library = await open();
    const item = await recordOne(library, 'gone.png');
    const [failed] = await library.whenSettled([item.id]);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, retryAt: null, path: null });
    expect(failed!.error).toMatch(/404/);
    // Given up: a resume does not pick it up again.
    expect(await library.resumePending()).toBe(0);
    server.setFile('gone.png', BYTES);
    await library.retry(item.id);
    const [done] = await library.whenSettled([item.id]);
    expect(done).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('gives up at once on a file over the size cap, and a restart does not fetch it again', async () => {
    server.setFile('huge.bin', BYTES);
    const capped = new ServiceClient(
      { kind: 'local', baseUrl: server.url },
      { apiKey: () => null, retry: { retries: 0, baseMs: 5, maxMs: 20 }, limits: { ...DEFAULT_LIMITS, outputBytes: 16 * 1024 } },
    );
    const library = await open(capped);
    const item = await recordOne(library, 'huge.bin');
    const [failed] = await library.whenSettled([item.id]);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, retryAt: null, path: null });
    expect(failed!.error).toMatch(/more than 16 KiB for the output file .*FLOWDECK_MAX_OUTPUT_MB/);
    expect(server.requests.filter((r) => r === 'huge.bin')).toHaveLength(1);
    // The next start (a new library on the same store) leaves it failed rather than resuming it.
    await library.dispose();
    const next = await open(capped);
    expect(await next.resumePending()).toBe(0);
    expect(server.requests.filter((r) => r === 'huge.bin')).toHaveLength(1);
    expect(filesUnder(join(dir, 'library'))).toEqual([]);
  });

  it('gives up after the last attempt, saying how many were made', async () => {
    server.setFile('always500.bin', BYTES);
    server.plan('always500.bin', Array(20).fill('error500'));
    const library = await open(api, { ...QUICK_RETRY, maxAttempts: 3 });
    const item = await recordOne(library, 'always500.bin');
    const [failed] = await library.whenSettled([item.id]);
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, retryAt: null });
    expect(failed!.error).toMatch(/HTTP 500.*gave up after 3 attempts/s);
    expect(filesUnder(join(dir, 'library'))).toEqual([]);
  });
});

describe('hostile file names from the server', () => {
  it('keeps every file inside its dated folder under a safe name', async () => {
    const hostile = [
      '../../../../etc/passwd',
      '..\\..\\windows\\win.ini',
      'con.png',
      'a/b/../../c.png',
      'evil\u202egnp.exe',
      '.bashrc',
      '...',
      'name\nwith\rcontrols.png',
      'x'.repeat(400) + '.png',
    ];
    for (const name of hostile) server.setFile(name, Buffer.from(name));
    const library = await open();
    const recorded = await library.record({ promptId: 'hostile', outputs: hostile.map((name) => output(name)) }, { server: libServer, createdAt: AT });
    const items = await library.whenSettled(recorded.map((i) => i.id));
    expect(items.map((i) => i.status)).toEqual(hostile.map(() => 'done'));
    const folder = dateFolder(AT);
    const files = filesUnder(dir);
    // Nothing outside the library's dated folder (besides the store itself).
    expect(files.filter((f) => !f.startsWith(`library/${folder}/`) && !f.startsWith('flowdeck.sqlite'))).toEqual([]);
    const names = files.filter((f) => f.startsWith('library/')).map((f) => f.slice(`library/${folder}/`.length));
    expect(names).toContain('passwd');
    expect(names).toContain('win.ini');
    expect(names).toContain('_con.png');
    expect(names).toContain('c.png');
    expect(names).toContain('evil_gnp.exe');
    expect(names).toContain('bashrc');
    expect(names).toContain('name_with_controls.png');
    for (const name of names) {
      expect(name).not.toMatch(/[/\\\u0000-\u001f\u202e]/);
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(210);
    }
    // The server's own name is kept for display, untouched.
    expect(items.map((i) => i.file.filename)).toEqual(hostile);
  });
});

describe('restart', () => {
  it('resumes downloads recorded while no client was available, and ones a crash left running', async () => {
    server.setFile('later.bin', BYTES);
    server.setFile('crashed.bin', Buffer.from('crashed bytes'));
    const before = await open(null);
    const later = await recordOne(before, 'later.bin');
    const crashed = await recordOne(before, 'crashed.bin');
    await before.whenSettled([later.id, crashed.id]);
    expect((await before.get(later.id))?.status).toBe('pending');
    await before.dispose();

    // What a crash leaves behind: a row still "downloading" and a staging folder of a dead process.
    await store.run("UPDATE library_items SET status = 'downloading', attempts = 1 WHERE id = ?", [crashed.id]);
    const { mkdir, writeFile } = await import('node:fs/promises');
    const stale = join(dir, 'library', '.incoming', '999999999-dead');
    await mkdir(stale, { recursive: true });
    await writeFile(join(stale, 'download.part-abc'), 'half a file');

    const after = await open(api);
    expect(filesUnder(join(dir, 'library', '.incoming'))).toEqual([]);
    expect(await after.resumePending({ server: 'http://elsewhere.example' })).toBe(0);
    expect(await after.resumePending()).toBe(2);
    const items = await after.whenSettled([later.id, crashed.id]);
    expect(items.map((i) => [i.status, i.attempts])).toEqual([
      ['done', 1],
      ['done', 2],
    ]);
    expect(filesUnder(join(dir, 'library'))).toEqual([`${dateFolder(AT)}/crashed.bin`, `${dateFolder(AT)}/later.bin`]);
  });
});

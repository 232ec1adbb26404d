// The library's copy of an output is durable before its name is: Library.importFile makes its copy
// in the staging folder (through memory for a small file, by the kernel for a large one, or by
// reflink), and the data must reach the disk (fdatasync on the descriptor that wrote it, or one that
// reads the kernel's copy) before link() or rename() gives it its name in the dated folder, whose
// fsync then makes that name durable. Otherwise a power cut could keep the name with no contents.
// The order is observed through node:fs/promises as the real modules use it: every write, sync and
// name given to a file in the staging folder is logged, in the order the calls were made.
import { createHash, randomBytes } from 'node:crypto';
import type * as FsPromises from 'node:fs/promises';
import type * as Reflink from '@main/files/reflink';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { importRequest, openTempLibrary, type TempLibrary } from './support/helpers';

/** What happened to which file: `write` (bytes written), `sync` (fsync or fdatasync), `publish` (a name given). */
const events: { op: 'write' | 'sync' | 'publish'; file: string }[] = [];
/** When set, reflinkCopy copies (this file system may have no reflinks) and reports a reflink. */
let fakeReflink = false;

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  const log = (op: 'write' | 'sync' | 'publish', file: unknown): void => {
    events.push({ op, file: resolve(String(file)) });
  };
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>) => {
      const handle = await real.open(...args);
      const file = args[0];
      const { writeFile: write, write: writeSome, sync, datasync } = handle;
      handle.writeFile = (...rest: Parameters<typeof write>) => (log('write', file), write.apply(handle, rest));
      handle.write = ((...rest: Parameters<typeof writeSome>) => (log('write', file), writeSome.apply(handle, rest))) as typeof writeSome;
      handle.sync = () => sync.apply(handle).then(() => log('sync', file));
      handle.datasync = () => datasync.apply(handle).then(() => log('sync', file));
      return handle;
    },
    copyFile: async (...args: Parameters<typeof real.copyFile>) => {
      await real.copyFile(...args);
      log('write', args[1]);
    },
    link: async (...args: Parameters<typeof real.link>) => {
      await real.link(...args);
      log('publish', args[0]);
    },
    rename: async (...args: Parameters<typeof real.rename>) => {
      await real.rename(...args);
      log('publish', args[0]);
    },
  };
});

vi.mock('@main/files/reflink', async (importOriginal) => {
  const real = await importOriginal<typeof Reflink>();
  const fs = await import('node:fs/promises');
  return {
    ...real,
    reflinkCopy: async (source: string, dest: string) => {
      if (!fakeReflink) return real.reflinkCopy(source, dest);
      await fs.copyFile(source, dest);
      return true;
    },
  };
});

let temp: TempLibrary;

beforeEach(async () => {
  temp = await openTempLibrary('flowdeck-import-durable-');
  events.length = 0;
  fakeReflink = false;
});

afterEach(async () => {
  await temp.close();
});

/** The staged file that was published, and what happened to it before, in order. */
function historyOfPublished(): string[] {
  const staging = resolve(temp.dir, 'library', '.incoming');
  const published = events.filter((e) => e.op === 'publish' && e.file.startsWith(staging));
  expect(published).toHaveLength(1);
  const file = published[0]!.file;
  return events.filter((e) => e.file === file).map((e) => e.op);
}

it('syncs a copy made through memory on the handle that wrote it, before its name is given', async () => {
  const output = join(temp.dir, 'small.png');
  await writeFile(output, randomBytes(200_000));
  const item = await temp.library.importFile(importRequest(output, 'job-small', 'small.png'));
  expect(item.status).toBe('done');
  expect(historyOfPublished()).toEqual(['write', 'sync', 'publish']);
});

it('syncs a copy over the in-memory bound (copied by the kernel) before its name is given', async () => {
  const output = join(temp.dir, 'large.bin');
  await writeFile(output, randomBytes(8 * 1024 * 1024 + 1));
  const item = await temp.library.importFile(importRequest(output, 'job-large', 'large.bin'));
  expect(item).toMatchObject({ status: 'done', size: 8 * 1024 * 1024 + 1 });
  expect(historyOfPublished()).toEqual(['write', 'sync', 'publish']);
});

it('syncs a reflinked copy before its name is given', async () => {
  fakeReflink = true;
  const bytes = randomBytes(100_000);
  const output = join(temp.dir, 'cloned.png');
  await writeFile(output, bytes);
  const digest = { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, head: bytes.subarray(0, 4096) };
  const item = await temp.library.importFile({ ...importRequest(output, 'job-clone', 'cloned.png'), staged: { path: null, digest } });
  expect(item).toMatchObject({ status: 'done', sha256: digest.sha256 });
  expect(historyOfPublished()).toEqual(['write', 'sync', 'publish']);
});

// syncDirectory (src/main/files/publish.ts) shares fsyncs: callers that come while one is under way
// wait for the next, one for all of them, and nobody is answered by an fsync that began before
// their call. The calls of the real module are counted through node:fs/promises' open.
import type * as FsPromises from 'node:fs/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';

const opened: string[] = [];
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  return {
    ...real,
    open: (...args: Parameters<typeof real.open>) => {
      opened.push(String(args[0]));
      return real.open(...args);
    },
  };
});

const { syncDirectory } = await import('@main/files/publish');

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-dirsync-'));
  opened.length = 0;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('runs one fsync for the first caller and one more shared by everyone who came meanwhile', async () => {
  const first = syncDirectory(dir);
  await writeFile(join(dir, 'a'), 'a');
  const meanwhile = Array.from({ length: 20 }, () => syncDirectory(dir));
  await Promise.all([first, ...meanwhile]);
  expect(opened.filter((p) => p === dir)).toHaveLength(2);
  // Once all is quiet, the next call has an fsync of its own.
  await syncDirectory(dir);
  expect(opened.filter((p) => p === dir)).toHaveLength(3);
});

it('keeps folders apart and answers for a folder that is gone', async () => {
  const other = join(dir, 'sub');
  await import('node:fs/promises').then((fs) => fs.mkdir(other));
  await Promise.all([syncDirectory(dir), syncDirectory(other), syncDirectory(join(dir, 'missing'))]);
  expect(opened.filter((p) => p === dir)).toHaveLength(1);
  expect(opened.filter((p) => p === other)).toHaveLength(1);
});

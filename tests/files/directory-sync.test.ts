// syncDirectory (src/main/files/publish.ts) shares fsyncs: callers that come while one is under way
// wait for the next, one for all of them, and nobody is answered by an fsync that began before
// their call; an fsync that fails rejects everyone who shared it. The calls of the real module are
// counted through node:fs/promises' open, whose handles can be made to fail their fsync.
import type * as FsPromises from 'node:fs/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';

const opened: string[] = [];
/** Folders whose next fsync fails with this code (then succeeds again). */
const failNext = new Map<string, string>();
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>) => {
      const path = String(args[0]);
      opened.push(path);
      const handle = await real.open(...args);
      const code = failNext.get(path);
      if (code === undefined) return handle;
      failNext.delete(path);
      // The fsync on this handle fails as a disk would (the handle is still closed after it).
      handle.sync = () => Promise.reject(Object.assign(new Error(`${code}: fsync failed`), { code }));
      return handle;
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

it('rejects every caller that shared an fsync that failed, and the next fsync runs afresh', async () => {
  failNext.set(dir, 'EIO');
  // Callers of one turn share one fsync: it fails, and all of them hear of it.
  const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => syncDirectory(dir)));
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
  expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/EIO/);
  expect(opened.filter((p) => p === dir)).toHaveLength(1);
  // The next one is an fsync of its own, not the failed one's answer.
  await expect(syncDirectory(dir)).resolves.toBeUndefined();
  expect(opened.filter((p) => p === dir)).toHaveLength(2);
  // A file system that cannot fsync folders is not an error.
  failNext.set(dir, 'EINVAL');
  await expect(syncDirectory(dir)).resolves.toBeUndefined();
});

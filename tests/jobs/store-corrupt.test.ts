// A store file that is not a database (random bytes, a truncated copy) is moved aside, kept for
// inspection, and a fresh store is started; the store says so, so every front end can tell the user.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobStore } from '@main/jobs/job-store';
import { Store } from '@main/store/store';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-store-corrupt-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a corrupt store file', () => {
  it('is moved aside with its WAL, kept byte for byte, and a fresh store starts', async () => {
    const path = join(dir, 'flowdeck.sqlite');
    const junk = randomBytes(64 * 1024);
    await writeFile(path, junk);
    await writeFile(`${path}-wal`, randomBytes(100));
    const store = await Store.open(path);
    try {
      expect(store.reset).not.toBeNull();
      const copy = store.reset!.corruptCopy;
      expect(copy).toMatch(/flowdeck\.sqlite\.corrupt-\d{8}T\d{6}Z$/);
      expect(await readFile(copy)).toEqual(junk);
      expect(store.reset!.reason).toMatch(/not a database/);
      const jobs = await JobStore.open(store);
      expect(await jobs.list()).toEqual([]);
      expect((await readdir(dir)).sort()).toEqual(expect.arrayContaining([`${copy.split('/').pop()}-wal`]));
    } finally {
      await store.close();
    }
    // The next open finds a sound store: nothing to reset.
    const again = await Store.open(path);
    expect(again.reset).toBeNull();
    await again.close();
  });

  it('is recognised by SQLite too when only its header looks right', async () => {
    const path = join(dir, 'half.sqlite');
    await writeFile(path, Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), randomBytes(8 * 1024)]));
    const store = await Store.open(path);
    try {
      expect(store.reset?.corruptCopy).toMatch(/half\.sqlite\.corrupt-/);
      expect(await store.version('jobs')).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('is left alone when it is sound', async () => {
    const path = join(dir, 'ok.sqlite');
    const store = await Store.open(path);
    expect(store.reset).toBeNull();
    await store.close();
    expect((await readdir(dir)).filter((n) => n.includes('corrupt'))).toEqual([]);
  });
});

// How Library.importFile copies an output it was not handed a copy of (import-file.ts): a small file
// is read once into memory, hashed and probed there and written from those bytes; a file over the
// in-memory bound (8 MiB) is copied and hashed in one streaming read. Either way the library's file
// is byte for byte the output, its sha256 is the output's, and nothing is left in the staging folder
// (a published copy, a copy dropped for bytes the library already holds, a failed import). A
// download's digest that no longer fits the file is not trusted: the copy is hashed again.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Library } from '@main/library/library';
import { importRequest, openTempLibrary, type TempLibrary } from './support/helpers';

let temp: TempLibrary;
let dir: string;
let library: Library;

beforeEach(async () => {
  temp = await openTempLibrary('flowdeck-import-copy-');
  ({ dir, library } = temp);
});

afterEach(() => temp.close());

/** Every file (not folder) under the library's staging folders. */
async function stagedFiles(): Promise<string[]> {
  const entries = await readdir(join(dir, 'library', '.incoming'), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => !e.isDirectory()).map((e) => join(e.parentPath, e.name));
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

it('copies a small output through memory: the same bytes and sha256, nothing left in staging, also when the bytes are already there', async () => {
  const bytes = randomBytes(300_000);
  const output = join(dir, 'a.bin');
  await writeFile(output, bytes);
  const first = await library.importFile(importRequest(output, 'job-1', 'a.bin'));
  expect(first).toMatchObject({ status: 'done', size: bytes.length, sha256: sha256(bytes) });
  expect((await readFile(first.path!)).equals(bytes)).toBe(true);
  expect(await readFile(output)).toEqual(bytes); // copied, not moved
  expect(await stagedFiles()).toEqual([]);

  // The same bytes from another job: the library's file is reused and this copy dropped.
  const second = await library.importFile(importRequest(output, 'job-2', 'b.bin'));
  expect(second).toMatchObject({ status: 'done', path: first.path, sha256: first.sha256 });
  expect(await stagedFiles()).toEqual([]);

  // An empty output is a file too.
  await writeFile(join(dir, 'empty.bin'), Buffer.alloc(0));
  const empty = await library.importFile(importRequest(join(dir, 'empty.bin'), 'job-3', 'empty.bin'));
  expect(empty).toMatchObject({ status: 'done', size: 0, sha256: sha256(Buffer.alloc(0)) });
  expect(await stagedFiles()).toEqual([]);
});

it('copies an output over 8 MiB by a streaming hash of the copy, byte for byte', async () => {
  const bytes = randomBytes(8 * 1024 * 1024 + 17);
  const output = join(dir, 'clip.bin');
  await writeFile(output, bytes);
  const item = await library.importFile(importRequest(output, 'job-big', 'clip.bin'));
  expect(item).toMatchObject({ status: 'done', size: bytes.length, sha256: sha256(bytes) });
  expect((await readFile(item.path!)).equals(bytes)).toBe(true);
  expect(await stagedFiles()).toEqual([]);
});

it('says what is wrong with a folder given as the output, and leaves nothing in staging', async () => {
  const folder = join(dir, 'a-folder.png');
  await mkdir(folder);
  await expect(library.importFile(importRequest(folder, 'job-f', 'a-folder.png'))).rejects.toThrow(`${folder} is a folder, not an output file.`);
  expect(await library.list()).toEqual([]);
  expect(await stagedFiles()).toEqual([]);
});

it("hashes the copy again when the download's digest no longer fits the file (changed since, or no reflink here)", async () => {
  const bytes = randomBytes(50_000);
  const output = join(dir, 'changed.bin');
  await writeFile(output, bytes);
  // The digest the download took of an earlier, shorter version of the file.
  const stale = { sha256: sha256(bytes.subarray(0, 1000)), size: 1000, head: bytes.subarray(0, 1000) };
  const item = await library.importFile({ ...importRequest(output, 'job-stale', 'changed.bin'), staged: { path: null, digest: stale } });
  expect(item).toMatchObject({ status: 'done', size: bytes.length, sha256: sha256(bytes) });
  expect((await readFile(item.path!)).equals(bytes)).toBe(true);
  expect(await stagedFiles()).toEqual([]);
});

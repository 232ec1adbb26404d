// The one publish step (src/main/files/publish.ts) and reflink copies (files/reflink.ts), on the
// real file system of the machine running the tests.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { partialPathFor, publishFile, writeFileAtomically } from '@main/files/publish';
import { isOwnPartialName } from '@main/files/partial-files';
import { canReflink, reflinkCopy } from '@main/files/reflink';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-publish-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function partialWith(name: string, text: string): Promise<string> {
  const temp = partialPathFor(join(dir, name));
  await writeFile(temp, text, { flag: 'wx' });
  return temp;
}

it('publishes under the name, never replacing: the next one is "name (1).ext"; no partial name stays', async () => {
  const first = await publishFile(await partialWith('out.png', 'one'), dir, 'out.png');
  const second = await publishFile(await partialWith('out.png', 'two'), dir, 'out.png');
  expect([first, second]).toEqual([join(dir, 'out.png'), join(dir, 'out (1).png')]);
  expect(await readFile(first, 'utf8')).toBe('one');
  expect(await readFile(second, 'utf8')).toBe('two');
  expect((await readdir(dir)).sort()).toEqual(['out (1).png', 'out.png']);
  expect((await stat(first)).nlink).toBe(1);
});

it('replaces only when asked (the caller owns the name), and creates the folder', async () => {
  await writeFile(join(dir, 'sidecar.json'), 'old');
  await publishFile(await partialWith('sidecar.json', 'new'), dir, 'sidecar.json', { replace: true });
  expect(await readFile(join(dir, 'sidecar.json'), 'utf8')).toBe('new');
  const nested = join(dir, 'a', 'b');
  const temp = await partialWith('x.txt', 'x');
  expect(await publishFile(temp, nested, 'x.txt')).toBe(join(nested, 'x.txt'));
});

it('refuses a name that is not a plain file name in the folder', async () => {
  const temp = await partialWith('x', 'x');
  for (const bad of ['../x', 'a/b', '..', '.', '']) await expect(publishFile(temp, dir, bad)).rejects.toThrow(/not a plain file name/);
  expect(await readFile(temp, 'utf8')).toBe('x');
});

it('partial names carry the pid, so the sweep of partial-files.ts knows them', () => {
  const name = partialPathFor(join(dir, 'photo.png')).slice(dir.length + 1);
  expect(name).toMatch(new RegExp(`^photo\\.png\\.part-${process.pid}-[0-9a-f]{12}$`));
  expect(isOwnPartialName(name)).toBe(true);
});

it('writes a small file atomically over the earlier one', async () => {
  await writeFileAtomically(join(dir, 'a.json'), '{"v":1}');
  await writeFileAtomically(join(dir, 'a.json'), '{"v":2}', { durable: true });
  expect(await readFile(join(dir, 'a.json'), 'utf8')).toBe('{"v":2}');
  expect(await readdir(dir)).toEqual(['a.json']);
});

it('a reflink is a separate file (editing it leaves the source alone), or false with nothing left behind', async () => {
  const source = join(dir, 'source.bin');
  await writeFile(source, 'original bytes');
  const dest = join(dir, 'clone.bin');
  const cloned = await reflinkCopy(source, dest);
  expect(cloned).toBe(await canReflink(dir, dir));
  if (cloned) {
    await writeFile(dest, 'changed');
    expect(await readFile(source, 'utf8')).toBe('original bytes');
  } else {
    // ext4, tmpfs and the like: no clone, and no empty file under the target name.
    expect(await readdir(dir)).toEqual(['source.bin']);
  }
  await expect(reflinkCopy(join(dir, 'missing'), join(dir, 'y'))).rejects.toMatchObject({ code: 'ENOENT' });
});

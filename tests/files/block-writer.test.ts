// The block writer of downloads and their tee copies (src/main/files/block-writer.ts), on the real
// file systems of the machine running the tests: O_DIRECT where the temp folder has it (ext4,
// XFS, btrfs on Linux), buffered writes elsewhere, and tmpfs (/dev/shm), which has O_DIRECT only
// since Linux 6.6.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants as fsConstants, existsSync } from 'node:fs';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BLOCK_BYTES, BlockWriter, DIRECT_MIN_BYTES } from '@main/files/block-writer';

let dirs: string[] = [];

async function tempDir(parent = tmpdir()): Promise<string> {
  const dir = await mkdtemp(join(parent, 'flowdeck-blocks-'));
  dirs.push(dir);
  return dir;
}

beforeEach(() => {
  dirs = [];
});

afterEach(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** Bytes that differ at every offset, so a block written at a wrong offset shows. */
function pattern(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i + 4 <= size; i += 4) bytes.writeUInt32LE(i >>> 0, i);
  for (let i = size - (size % 4); i < size; i += 1) bytes[i] = i % 251;
  return bytes;
}

/** Feeds `bytes` in chunks of the given sizes (cycled), waiting whenever the writer asks. */
async function feed(writer: BlockWriter, bytes: Buffer, sizes: number[]): Promise<void> {
  for (let at = 0, n = 0; at < bytes.length; n += 1) {
    const size = Math.min(sizes[n % sizes.length]!, bytes.length - at);
    await writer.write(bytes.subarray(at, at + size));
    at += size;
  }
}

/** Whether `dir`'s file system takes an O_DIRECT open (what the writer tries first). */
async function takesDirect(dir: string): Promise<boolean> {
  const flag = (fsConstants as { O_DIRECT?: number }).O_DIRECT;
  if (!flag) return false;
  const probe = join(dir, 'probe');
  const handle = await open(probe, fsConstants.O_WRONLY | fsConstants.O_CREAT | flag).catch(() => null);
  await handle?.close();
  await rm(probe, { force: true });
  return handle !== null;
}

it('writes a big stream of odd chunks to every file, byte for byte, with its exact size (unaligned end)', async () => {
  const dir = await tempDir();
  const bytes = pattern(DIRECT_MIN_BYTES + 2 * BLOCK_BYTES + 12_345);
  const paths = [join(dir, 'a.part'), join(dir, 'b.part')];
  const writer = await BlockWriter.create(paths, bytes.length);
  try {
    // On a file system with O_DIRECT a big file bypasses the page cache; elsewhere it is buffered.
    expect(writer.direct).toBe(await takesDirect(dir));
    await feed(writer, bytes, [65_536, 1, 4095, 333_333, 16_384]);
    expect((await writer.end()).bytes).toBe(bytes.length);
  } finally {
    await writer.close();
  }
  for (const file of paths) expect((await readFile(file)).equals(bytes)).toBe(true);
});

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

it('gives the sha256 of what it wrote: a big stream hashed on the hashing thread, a small one inline', async () => {
  const dir = await tempDir();
  const big = pattern(DIRECT_MIN_BYTES + 3 * BLOCK_BYTES + 777);
  const small = pattern(70_001);
  const bigWriter = await BlockWriter.create([join(dir, 'big.part'), join(dir, 'tee.part')], big.length, { digest: true });
  const smallWriter = await BlockWriter.create([join(dir, 'small.part')], small.length, { digest: true });
  const unknownSize = await BlockWriter.create([join(dir, 'unknown.part')], null, { digest: true });
  const plain = await BlockWriter.create([join(dir, 'plain.part')], small.length);
  try {
    // Two streams at once, fed interleaved: each digest has only its own bytes.
    await Promise.all([feed(bigWriter, big, [65_536, 3, 1_000_000]), feed(smallWriter, small, [4096, 17]), feed(unknownSize, big, [2 * BLOCK_BYTES + 1])]);
    await feed(plain, small, [65_536]);
    expect(await bigWriter.end()).toEqual({ bytes: big.length, sha256: sha256(big) });
    expect(await smallWriter.end()).toEqual({ bytes: small.length, sha256: sha256(small) });
    expect(await unknownSize.end()).toEqual({ bytes: big.length, sha256: sha256(big) });
    expect(await plain.end()).toEqual({ bytes: small.length, sha256: null });
  } finally {
    await Promise.all([bigWriter.close(), smallWriter.close(), unknownSize.close(), plain.close()]);
  }
  // An empty stream has the empty digest; a writer given up before its end leaves nothing behind
  // in the hashing thread for the next stream.
  const dropped = await BlockWriter.create([join(dir, 'dropped.part')], null, { digest: true });
  await feed(dropped, big.subarray(0, BLOCK_BYTES + 5), [BLOCK_BYTES]);
  await dropped.close();
  const empty = await BlockWriter.create([join(dir, 'empty.part')], null, { digest: true });
  expect(await empty.end()).toEqual({ bytes: 0, sha256: sha256(Buffer.alloc(0)) });
  await empty.close();
  const after = await BlockWriter.create([join(dir, 'after.part')], null, { digest: true });
  await feed(after, small, [65_536]);
  expect((await after.end()).sha256).toBe(sha256(small));
  await after.close();
});

it('a stream of unknown length is written like a big one; an empty one gives empty files', async () => {
  const dir = await tempDir();
  const bytes = pattern(BLOCK_BYTES + 1);
  const writer = await BlockWriter.create([join(dir, 'x.part')], null);
  await feed(writer, bytes, [100_000]);
  await writer.end();
  await writer.close();
  expect((await readFile(join(dir, 'x.part'))).equals(bytes)).toBe(true);

  const empty = await BlockWriter.create([join(dir, 'e.part')], null);
  expect((await empty.end()).bytes).toBe(0);
  await empty.close();
  expect((await readFile(join(dir, 'e.part'))).length).toBe(0);
});

it('a small file goes through the page cache, also when more bytes come than announced', async () => {
  const dir = await tempDir();
  const bytes = pattern(10_000);
  const writer = await BlockWriter.create([join(dir, 's.part')], 6_000);
  expect(writer.direct).toBe(false);
  expect(6_000).toBeLessThan(DIRECT_MIN_BYTES);
  await feed(writer, bytes, [4_000]);
  await writer.end();
  await writer.close();
  expect((await readFile(join(dir, 's.part'))).equals(bytes)).toBe(true);

  // Just under the O_DIRECT size: buffered, in 1 MiB blocks.
  const large = pattern(DIRECT_MIN_BYTES - 1);
  const buffered = await BlockWriter.create([join(dir, 'l.part')], large.length);
  expect(buffered.direct).toBe(false);
  await feed(buffered, large, [65_536, 3]);
  expect((await buffered.end()).bytes).toBe(large.length);
  await buffered.close();
  expect((await readFile(join(dir, 'l.part'))).equals(large)).toBe(true);
});

it('holds the caller back once its blocks are all in flight, and takes the rest afterwards', async () => {
  const dir = await tempDir();
  const bytes = pattern(4 * BLOCK_BYTES + 10);
  const writer = await BlockWriter.create([join(dir, 'w.part')], bytes.length);
  // Four full blocks are taken at once (written meanwhile); the fifth must wait for one of them.
  expect(writer.write(bytes.subarray(0, 4 * BLOCK_BYTES))).toBeNull();
  const wait = writer.write(bytes.subarray(4 * BLOCK_BYTES));
  expect(wait).not.toBeNull();
  await wait;
  await writer.end();
  await writer.close();
  expect((await readFile(join(dir, 'w.part'))).equals(bytes)).toBe(true);
});

it('two big downloads at once are written directly, a third buffered; a closed one makes room', async (context) => {
  const dir = await tempDir();
  if (!(await takesDirect(dir))) return context.skip('the temp folder has no O_DIRECT: every writer is buffered here');
  const open = (name: string): Promise<BlockWriter> => BlockWriter.create([join(dir, name)], null);
  const [first, second, third] = [await open('1.part'), await open('2.part'), await open('3.part')];
  expect([first.direct, second.direct, third.direct]).toEqual([true, true, false]);
  await first.close();
  const fourth = await open('4.part');
  expect(fourth.direct).toBe(true);
  for (const writer of [second, third, fourth]) {
    await writer.write(pattern(100));
    await writer.end();
    await writer.close();
  }
  expect((await readFile(join(dir, '3.part'))).equals(pattern(100))).toBe(true);
});

it('tmpfs (/dev/shm: O_DIRECT since Linux 6.6, refused at open before) gets the same bytes either way', async (context) => {
  if (!existsSync('/dev/shm')) return context.skip('no /dev/shm (tmpfs) on this machine');
  const dir = await tempDir('/dev/shm');
  const bytes = pattern(DIRECT_MIN_BYTES + 777);
  const writer = await BlockWriter.create([join(dir, 't.part')], bytes.length);
  expect(writer.direct).toBe(await takesDirect(dir));
  await feed(writer, bytes, [65_536]);
  await writer.end();
  await writer.close();
  expect((await readFile(join(dir, 't.part'))).equals(bytes)).toBe(true);
});

it('never opens a file that is already there, and leaves none of its own behind when one is', async () => {
  const dir = await tempDir();
  await writeFile(join(dir, 'taken.part'), 'keep');
  await expect(BlockWriter.create([join(dir, 'first.part'), join(dir, 'taken.part')], null)).rejects.toMatchObject({ code: 'EEXIST' });
  expect(existsSync(join(dir, 'first.part'))).toBe(false);
  expect(await readFile(join(dir, 'taken.part'), 'utf8')).toBe('keep');
});

it('leaves the process free to exit: the hashing thread never holds it, used or not', async () => {
  const dir = await tempDir();
  const script = join(dir, 'child.mts');
  const module = pathToFileURL(resolve(import.meta.dirname, '../../src/main/files/block-writer.ts')).href;
  // "failed": a download that breaks after 80 bytes (the thread is made, never asked anything);
  // "used": one whose blocks the thread hashes.
  await writeFile(
    script,
    `import { BlockWriter } from ${JSON.stringify(module)};
const mode = process.argv[2];
const writer = await BlockWriter.create([${JSON.stringify(dir)} + '/' + mode + '.part'], null, { digest: true });
if (mode === 'failed') {
  writer.write(Buffer.alloc(80));
  await writer.close();
  console.log('closed');
} else {
  for (let i = 0; i < 3; i += 1) await writer.write(Buffer.alloc(${BLOCK_BYTES}, i));
  console.log((await writer.end()).sha256);
  await writer.close();
}
`,
  );
  const loader = pathToFileURL(resolve(import.meta.dirname, '../../node_modules/tsx/dist/loader.mjs')).href;
  const run = (mode: string): Promise<{ code: number | null; stdout: string }> =>
    new Promise((done) => {
      const child = execFile(process.execPath, ['--import', loader, script, mode], { timeout: 20_000 }, (_error, stdout) =>
        done({ code: child.exitCode, stdout }),
      );
    });
  const expected = createHash('sha256');
  for (let i = 0; i < 3; i += 1) expected.update(Buffer.alloc(BLOCK_BYTES, i));
  // A child still running at the timeout is killed: its exit code is then null, not 0.
  expect(await Promise.all([run('failed'), run('used')])).toEqual([
    { code: 0, stdout: 'closed\n' },
    { code: 0, stdout: `${expected.digest('hex')}\n` },
  ]);
}, 40_000);

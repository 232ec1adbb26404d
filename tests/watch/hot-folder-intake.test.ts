// What a hot folder takes, and when: a file still being written waits until it stops changing,
// temporary names wait until renamed, the same content under two names runs once, and a file that
// is not a decodable image fails at once with its reason, without being uploaded.
import { appendFileSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { folderInput, makePng, openHarness, totalSubmissions, until, type Harness } from './helpers';

let demo: DemoService;
let h: Harness | null = null;

beforeAll(async () => {
  demo = new DemoService({ flavour: 'local', timeScale: 0.05 });
  await demo.start();
});

afterAll(async () => {
  await demo.stop();
});

afterEach(async () => {
  await h?.close();
  h = null;
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function makeJpeg(seed: number): Buffer {
  const width = 16;
  const height = 8;
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i += 1) data.writeUInt32BE(((seed * 2654435761 + i * 40503) | 0xff) >>> 0, i * 4);
  return Buffer.from(jpeg.encode({ data, width, height }, 90).data);
}

describe('taking files', () => {
  it('waits for a slowly growing file to be complete, and runs it once', async () => {
    h = await openHarness(demo);
    mkdirSync(h.inDir, { recursive: true });
    // Pauses of 100 ms against a 1 s interval: a loaded machine cannot stretch one into a false "complete".
    const config = await h.hot.add(folderInput(h, { settleMs: 1000 }));
    await h.hot.whenIdle(config.id);
    const before = totalSubmissions(demo);
    // A large-ish PNG written in pieces, each pause shorter than the settle interval.
    const bytes = makePng(11, 256, 256);
    const path = join(h.inDir, 'growing.png');
    const pieces = 8;
    const step = Math.ceil(bytes.length / pieces);
    writeFileSync(path, bytes.subarray(0, step));
    await until(() => h!.hot.files(config.id).some((r) => r.relPath === 'growing.png' && r.state === 'settling'), 'the growing file settling');
    for (let i = 1; i < pieces; i += 1) {
      await sleep(100);
      expect(h.hot.files(config.id).find((r) => r.relPath === 'growing.png')?.state).toBe('settling');
      appendFileSync(path, bytes.subarray(i * step, (i + 1) * step));
    }
    await until(() => h!.hot.counters(config.id).done + h!.hot.counters(config.id).failed === 1, 'the grown file processed');
    const row = h.hot.files(config.id).find((r) => r.relPath === 'growing.png')!;
    expect(row.reason).toBeNull();
    expect(row.state).toBe('done');
    expect(totalSubmissions(demo) - before).toBe(1);
  });

  it('ignores temporary names (.part, .crdownload, .tmp, hidden) until they are renamed', async () => {
    h = await openHarness(demo);
    mkdirSync(h.inDir, { recursive: true });
    const config = await h.hot.add(folderInput(h, { settleMs: 100 }));
    await h.hot.whenIdle(config.id);
    const before = totalSubmissions(demo);
    writeFileSync(join(h.inDir, 'one.png.part'), makePng(21));
    writeFileSync(join(h.inDir, 'two.png.crdownload'), makePng(22));
    writeFileSync(join(h.inDir, 'three.png.tmp'), makePng(23));
    writeFileSync(join(h.inDir, '.four.png'), makePng(24));
    writeFileSync(join(h.inDir, 'notes.txt'), 'not matched by the patterns');
    await sleep(600);
    expect(h.hot.files(config.id)).toEqual([]);
    expect(totalSubmissions(demo)).toBe(before);
    renameSync(join(h.inDir, 'one.png.part'), join(h.inDir, 'one.png'));
    renameSync(join(h.inDir, 'two.png.crdownload'), join(h.inDir, 'two.png'));
    await until(() => h!.hot.counters(config.id).done === 2, 'the renamed files done');
    expect(
      h.hot
        .files(config.id)
        .map((r) => r.relPath)
        .sort(),
    ).toEqual(['one.png', 'two.png']);
    expect(totalSubmissions(demo) - before).toBe(2);
  });

  it('runs the same content under two names once, before and after it is done', async () => {
    h = await openHarness(demo);
    mkdirSync(h.inDir, { recursive: true });
    writeFileSync(join(h.inDir, 'a.png'), makePng(31));
    writeFileSync(join(h.inDir, 'copy of a.png'), makePng(31));
    writeFileSync(join(h.inDir, 'b.jpg'), makeJpeg(32));
    const before = totalSubmissions(demo);
    const config = await h.hot.add(folderInput(h));
    await until(() => h!.hot.counters(config.id).done === 2, 'two contents done');
    await h.hot.whenIdle(config.id);
    expect(h.hot.counters(config.id)).toMatchObject({ done: 2, duplicates: 1, failed: 0 });
    const duplicate = h.hot.files(config.id).find((r) => r.state === 'duplicate')!;
    expect([join(h.inDir, 'a.png'), join(h.inDir, 'copy of a.png')]).toContain(duplicate.duplicateOf);
    // the same bytes again, later, under a third name
    writeFileSync(join(h.inDir, 'a again.png'), makePng(31));
    await until(() => h!.hot.counters(config.id).duplicates === 2, 'the late copy recognised');
    await h.hot.whenIdle(config.id);
    expect(totalSubmissions(demo) - before).toBe(2);
    expect([...demo.stats.submissions.values()].every((n) => n === 1)).toBe(true);
  });

  it('fails a file that is not a decodable image at once, with its reason, without uploading it', async () => {
    h = await openHarness(demo);
    mkdirSync(h.inDir, { recursive: true });
    const good = makePng(41, 64, 64);
    writeFileSync(join(h.inDir, 'text.png'), 'hello, I am text pretending to be a PNG\n');
    writeFileSync(join(h.inDir, 'cut.png'), good.subarray(0, Math.floor(good.length / 2)));
    const damaged = Buffer.from(good);
    const at = damaged.length - 20; // inside the image data (before the CRC and the 12-byte IEND): its CRC no longer matches
    damaged[at] = damaged[at]! ^ 0xff;
    writeFileSync(join(h.inDir, 'damaged.png'), damaged);
    writeFileSync(join(h.inDir, 'empty.jpg'), Buffer.alloc(0));
    writeFileSync(join(h.inDir, 'fine.png'), good);
    const uploadsBefore = demo.stats.uploads;
    const config = await h.hot.add(folderInput(h, { processed: 'move' }));
    await until(() => h!.hot.counters(config.id).failed === 4 && h!.hot.counters(config.id).done === 1, 'four failures and one success');
    const rows = new Map(h.hot.files(config.id).map((r) => [r.relPath, r]));
    expect(rows.get('text.png')!.reason).toMatch(/not an image.*looks like text/);
    expect(rows.get('cut.png')!.reason).toMatch(/truncated/);
    expect(rows.get('damaged.png')!.reason).toMatch(/damaged.*checksum/);
    expect(rows.get('empty.jpg')!.reason).toMatch(/empty/);
    for (const name of ['text.png', 'cut.png', 'damaged.png', 'empty.jpg']) {
      expect(rows.get(name)!.attempts).toBe(1);
      expect(existsSync(join(h.inDir, 'failed', name)), name).toBe(true);
    }
    expect(existsSync(join(h.inDir, 'done', 'fine.png'))).toBe(true);
    expect(demo.stats.uploads - uploadsBefore).toBe(1);

    // "Retry failed" checks the same bytes again and fails them at once: still nothing uploaded.
    expect(await h.hot.retryFailed(config.id)).toBe(4);
    await h.hot.whenIdle(config.id);
    const again = new Map(h.hot.files(config.id).map((r) => [r.relPath, r]));
    expect(again.get('text.png')!.state).toBe('failed');
    expect(again.get('text.png')!.reason).toMatch(/not an image.*looks like text/);
    expect(again.get('damaged.png')!.reason).toMatch(/damaged.*checksum/);
    expect(h.hot.counters(config.id).failed).toBe(4);
    expect(demo.stats.uploads - uploadsBefore).toBe(1);
  });
});

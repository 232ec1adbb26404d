// The hot folder's small parts on their own: names and patterns, the mask rule, the output naming
// rule, the streaming image check (fed in pieces, as files are read), the settle queue, the
// retry policy, configuration checks, the journal's batched writes, and the folder lock.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Store } from '@main/store/store';
import { ServiceError } from '@main/service/errors';
import { HotFolderConfigError, resolveHotFolderConfig } from '@main/watch/config';
import { ImageInspector } from '@main/watch/image-check';
import { discoveredEntry, WatchJournal, type EntryRecord } from '@main/watch/journal';
import { acquireFolderLock, FolderLockedError } from '@main/watch/lock';
import { MaskRule, checkMaskRule } from '@main/watch/mask-rule';
import { checkOutputNameRule, nameValues, renderOutputName } from '@main/watch/naming';
import { PatternSet, isTemporaryName, normalisePatterns } from '@main/watch/patterns';
import { reactionTo, retryDelay } from '@main/watch/policy';
import { SettleQueue } from '@main/watch/settle';
import { invertWorkflow, makePng } from './helpers';

const work = mkdtempSync(join(tmpdir(), 'flowdeck-watch-units-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function inspect(bytes: Buffer, piece = 7) {
  const inspector = new ImageInspector();
  for (let i = 0; i < bytes.length; i += piece) inspector.push(bytes.subarray(i, i + piece));
  return inspector.finish();
}

function makeJpeg(): Buffer {
  const width = 24;
  const height = 16;
  const data = Buffer.alloc(width * height * 4, 0x80);
  return Buffer.from(jpeg.encode({ data, width, height }, 80).data);
}

function makeWebpLossless(): Buffer {
  // RIFF header, VP8L chunk with its 0x2f signature and a few payload bytes (structure only).
  const payload = Buffer.from([0x2f, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11]);
  const chunk = Buffer.concat([Buffer.from('VP8L'), Buffer.alloc(4), payload]);
  chunk.writeUInt32LE(payload.length, 4);
  const riff = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP'), chunk]);
  riff.writeUInt32LE(riff.length - 8, 4);
  return riff;
}

/** A journal record of folder "f" for `contentKey`, just discovered at `at`. */
function newEntryRecord(contentKey: string, at: number): EntryRecord {
  return discoveredEntry(
    { folderId: 'f', contentKey, imageSha256: 's', maskSha256: null, path: `/in/${contentKey}.png`, relPath: `${contentKey}.png`, maskPath: null },
    at,
  );
}

describe('names and patterns', () => {
  it('recognises temporary and hidden names', () => {
    for (const name of ['a.png.part', 'b.PNG.crdownload', 'c.png.tmp', '.d.png', '.e.png.Xy12ab', 'f.png~', '~$g.png', 'h.png.download', 'i.filepart']) {
      expect(isTemporaryName(name), name).toBe(true);
    }
    for (const name of ['photo.png', 'part.png', 'tmp.jpg', 'my.temp.file.webp']) expect(isTemporaryName(name), name).toBe(false);
  });

  it('matches globs case-insensitively, with bare extensions accepted', () => {
    expect(normalisePatterns(['png', '.JPG', '*.webp', 'scan-??.tif'])).toEqual(['*.png', '*.jpg', '*.webp', 'scan-??.tif']);
    const set = new PatternSet(['png', 'jpeg', 'scan-??.tif']);
    expect(set.matches('A.PNG')).toBe(true);
    expect(set.matches('a.jpeg')).toBe(true);
    expect(set.matches('a.jpg')).toBe(false);
    expect(set.matches('scan-01.tif')).toBe(true);
    expect(set.matches('scan-001.tif')).toBe(false);
    expect(() => normalisePatterns(['sub/*.png'])).toThrow(/without folders/);
    expect(() => normalisePatterns(['  '])).toThrow(/At least one/);
  });

  it('pairs masks with images by the rule, and knows a mask when it sees one', () => {
    const rule = new MaskRule('{stem}.mask.png');
    expect(rule.maskFor('/in/sub/photo.jpg')).toBe('/in/sub/photo.mask.png');
    expect(rule.isMask('photo.mask.png')).toBe(true);
    expect(rule.isMask('PHOTO.MASK.PNG')).toBe(true);
    expect(rule.isMask('photo.png')).toBe(false);
    expect(new MaskRule('mask_{stem}.png').maskFor('/x/a.webp')).toBe('/x/mask_a.png');
    expect(checkMaskRule('mask.png')).toMatch(/\{stem\}/);
    expect(checkMaskRule('{stem}/{stem}.png')).toMatch(/exactly once|without folders/);
  });

  it('renders output names, keeping token values from making folders', () => {
    const values = nameValues({
      stem: 'photo',
      contentKey: 'abcdef0123456789',
      promptId: '12345678-aaaa',
      node: '9',
      index: 2,
      serverFilename: 'Flowdeck_00001_.png',
      at: Date.UTC(2026, 10, 21, 12),
    });
    expect(renderOutputName('{stem}_{node}_{index}.{ext}', values)).toBe('photo_9_2.png');
    expect(renderOutputName('{date}/{hash}-{job}.{ext}', values)).toBe('2026-11-21/abcdef01-12345678.png');
    const hostile = renderOutputName('{stem}.{ext}', { ...values, stem: '../../etc/passwd' });
    expect(hostile).toBe('_._etc_passwd.png'); // one harmless name: no separator, no ".."

    expect(checkOutputNameRule('{stem}_{nope}.{ext}')).toMatch(/\{nope\}/);
    expect(checkOutputNameRule('../{stem}.{ext}')).toMatch(/climb/);
    expect(checkOutputNameRule('/abs/{stem}')).toMatch(/relative/);
    expect(checkOutputNameRule('{node}_{index}.{ext}')).toMatch(/name the input/);
    expect(checkOutputNameRule('{stem}_{node}_{index}.{ext}')).toBeNull();
  });
});

describe('the streaming image check', () => {
  it('accepts complete PNG, JPEG and WebP files fed in small pieces, with their sizes', () => {
    expect(inspect(makePng(1, 40, 30))).toEqual({ ok: true, format: 'png', width: 40, height: 30 });
    expect(inspect(makeJpeg(), 5)).toEqual({ ok: true, format: 'jpeg', width: 24, height: 16 });
    expect(inspect(makeWebpLossless(), 3)).toMatchObject({ ok: true, format: 'webp' });
  });

  it('names what is wrong: text, empty, truncated, damaged', () => {
    expect(inspect(Buffer.from('just some text, long enough to be sniffed'))).toMatchObject({ ok: false, reason: expect.stringMatching(/not an image.*text/) });
    expect(inspect(Buffer.alloc(0))).toMatchObject({ ok: false, reason: expect.stringMatching(/empty/) });
    const png = makePng(2, 64, 64);
    expect(inspect(png.subarray(0, png.length - 5))).toMatchObject({ ok: false, reason: expect.stringMatching(/PNG.*truncated/) });
    const damaged = Buffer.from(png);
    damaged[png.length - 20] = damaged[png.length - 20]! ^ 0x55;
    expect(inspect(damaged)).toMatchObject({ ok: false, reason: expect.stringMatching(/checksum/) });
    const jpg = makeJpeg();
    expect(inspect(jpg.subarray(0, jpg.length - 2))).toMatchObject({ ok: false, reason: expect.stringMatching(/JPEG.*truncated/) });
    const webp = makeWebpLossless();
    expect(inspect(webp.subarray(0, webp.length - 3))).toMatchObject({ ok: false, reason: expect.stringMatching(/WebP.*truncated/) });
    expect(inspect(Buffer.from([0xff, 0xd8]))).toMatchObject({ ok: false });
  });
});

describe('the settle queue', () => {
  it('resolves once size and time stop changing, restarting the interval on each change', async () => {
    const path = join(work, 'settle.bin');
    writeFileSync(path, 'a');
    const queue = new SettleQueue(400); // writes come every 60 ms: far inside the interval, even on a loaded machine
    const started = Date.now();
    const stable = queue.waitStable(path);
    for (let i = 0; i < 4; i += 1) {
      await new Promise((r) => setTimeout(r, 60));
      appendFileSync(path, 'more');
      queue.touch(path);
    }
    const stamp = await stable;
    expect(stamp?.size).toBe(1 + 4 * 4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4 * 60 + 400 - 20);
    expect(await queue.waitStable(join(work, 'missing.bin'))).toBeNull();
    queue.dispose();
  });

  it('takes a file at once when its modification time is older than the interval, and waits for a fresh one', async () => {
    const old = join(work, 'settle-old.bin');
    writeFileSync(old, 'written long ago');
    const tenSecondsAgo = new Date(Date.now() - 10_000);
    utimesSync(old, tenSecondsAgo, tenSecondsAgo);
    const fresh = join(work, 'settle-fresh.bin');
    writeFileSync(fresh, 'just written');
    const queue = new SettleQueue(5_000);
    const stampOf = (path: string) => {
      const s = statSync(path);
      return { size: s.size, mtimeMs: s.mtimeMs };
    };
    const started = Date.now();
    expect(await queue.waitStable(old, stampOf(old))).toEqual(stampOf(old));
    expect(Date.now() - started).toBeLessThan(2_500);
    let freshSettled = false;
    void queue.waitStable(fresh, stampOf(fresh)).then(() => (freshSettled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(freshSettled).toBe(false);
    queue.dispose();
  });

  it('counts the interval from the modification time: a file written 700 ms before it is seen waits 300 ms more, then is looked at again', async () => {
    vi.useFakeTimers();
    try {
      let clock = 10_000;
      const stamp = { size: 5, mtimeMs: clock - 700 };
      let stats = 0;
      const queue = new SettleQueue(
        1_000,
        async () => {
          stats += 1;
          return stamp;
        },
        () => clock,
      );
      let settled: unknown = null;
      void queue.waitStable('/x/copied.png', stamp).then((s) => (settled = s));
      clock += 299;
      await vi.advanceTimersByTimeAsync(299);
      expect([settled, stats]).toEqual([null, 0]);
      clock += 1;
      await vi.advanceTimersByTimeAsync(1);
      expect([settled, stats]).toEqual([stamp, 1]);
      // A change seen then: the new modification time starts the interval again.
      const changed = { size: 9, mtimeMs: clock }; // written now: 100 ms before the next look
      let current = stamp;
      const second = new SettleQueue(
        1_000,
        async () => current,
        () => clock,
      );
      let secondSettled: unknown = null;
      void second.waitStable('/x/growing.png', { size: 1, mtimeMs: clock - 900 }).then((s) => (secondSettled = s));
      current = changed;
      clock += 100;
      await vi.advanceTimersByTimeAsync(100); // looked again: it changed, 100 ms ago
      expect(secondSettled).toBeNull();
      clock += 899;
      await vi.advanceTimersByTimeAsync(899);
      expect(secondSettled).toBeNull();
      clock += 1;
      await vi.advanceTimersByTimeAsync(1);
      expect(secondSettled).toEqual(changed);
      queue.dispose();
      second.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the retry policy', () => {
  it('pauses for the account, retries network and server errors, fails the rest', () => {
    expect(reactionTo(new ServiceError('subscription_inactive', 'x', { status: 429 }))).toMatchObject({ kind: 'pause', pauseKind: 'subscription_inactive' });
    expect(reactionTo(new ServiceError('unauthorized', 'x', { status: 401 }))).toMatchObject({ kind: 'pause', pauseKind: 'unauthorized' });
    expect(reactionTo(new ServiceError('insufficient_credits', 'x', { status: 402 }))).toMatchObject({ kind: 'pause' });
    expect(reactionTo(new ServiceError('server', 'x', { status: 503 }))).toMatchObject({ kind: 'retry' });
    expect(reactionTo(new ServiceError('network', 'x'))).toMatchObject({ kind: 'retry' });
    expect(reactionTo(new ServiceError('invalid_workflow', 'x', { status: 400 }))).toMatchObject({ kind: 'fail' });
    expect(reactionTo(new Error('EACCES'))).toMatchObject({ kind: 'fail', reason: 'EACCES' });
  });

  it('backs off exponentially, capped, with jitter between half and all of the step', () => {
    const policy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelay(n, policy, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(retryDelay(3, policy, () => 0)).toBe(200);
  });
});

describe('configuration', () => {
  const base = { inputDir: join(work, 'in'), outputDir: join(work, 'out'), workflow: invertWorkflow(), bind: '1.image' };

  it('fills in the defaults', () => {
    const config = resolveHotFolderConfig(base, () => 'generated');
    expect(config).toMatchObject({
      id: 'generated',
      name: 'in',
      patterns: ['*.png', '*.jpg', '*.jpeg', '*.webp'],
      maskRule: '{stem}.mask.png',
      outputName: '{stem}_{node}_{index}.{ext}',
      processed: 'leave',
      doneDir: join(work, 'in', 'done'),
      failedDir: join(work, 'in', 'failed'),
    });
    // an output folder inside the input folder is allowed (it is never scanned)
    expect(() => resolveHotFolderConfig({ ...base, outputDir: join(work, 'in', 'output') }, () => 'x')).not.toThrow();
  });

  it('refuses what cannot work, saying why', () => {
    const bad: [object, RegExp][] = [
      [{ ...base, bind: '7.image' }, /no node "7"/],
      [{ ...base, bind: 'image' }, /NODE\.INPUT/],
      [{ ...base, inputDir: 'relative/in' }, /absolute/],
      [{ ...base, outputDir: base.inputDir }, /differ/],
      [{ ...base, inputDir: join(work, 'out', 'in') }, /inside the output folder/],
      [{ ...base, outputName: '{nope}' }, /\{nope\}/],
      [{ ...base, maskRule: 'mask.png' }, /\{stem\}/],
      [{ ...base, concurrency: 0 }, /concurrency/],
      [{ ...base, workflow: 'not an object' }, /workflow/],
    ];
    for (const [input, message] of bad) expect(() => resolveHotFolderConfig(input, () => 'x'), String(message)).toThrow(message);
    expect(() => resolveHotFolderConfig({ ...base, bind: '9.x' }, () => 'x')).toThrow(HotFolderConfigError);
  });
});

describe('the journal', () => {
  it('batches writes into transactions and reads back validated rows', async () => {
    const store = await Store.open(':memory:');
    try {
      const journal = await WatchJournal.open(store);
      const now = Date.now();
      const entry = (i: number): EntryRecord => ({
        ...newEntryRecord(`k${i}`, now + i),
        imageSha256: `s${i}`,
        path: `/in/${i}.png`,
        relPath: `${i}.png`,
        updatedAt: now,
      });
      const writes = Array.from({ length: 50 }, (_, i) => journal.saveEntry(entry(i)));
      const changed = { ...entry(3), state: 'done' as const, outputs: ['/out/3_1.png'] };
      writes.push(journal.saveEntry(changed));
      await Promise.all(writes);
      // a damaged row is skipped, not fatal
      await store.run(`UPDATE watch_entries SET state = 'exploded' WHERE content_key = 'k4'`);
      const { entries } = await journal.load('f');
      expect(entries.length).toBe(49);
      expect(journal.skippedRows).toBe(1);
      expect(entries.find((e) => e.contentKey === 'k3')).toMatchObject({ state: 'done', outputs: ['/out/3_1.png'] });
      await journal.savePath({ folderId: 'f', path: '/in/1.png', contentKey: 'k1', imageSha256: 's1', size: 10, mtimeMs: 1.5 });
      await journal.deleteEntry('f', 'k2');
      const after = await journal.load('f');
      expect(after.paths).toEqual([{ folderId: 'f', path: '/in/1.png', contentKey: 'k1', imageSha256: 's1', size: 10, mtimeMs: 1.5 }]);
      expect(after.entries.some((e) => e.contentKey === 'k2')).toBe(false);
      expect(await store.version('watch')).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('writes a deferred state with the next write, or on its own shortly after, and never over a later state', async () => {
    const store = await Store.open(':memory:');
    try {
      const journal = await WatchJournal.open(store);
      const record = (contentKey: string, state: EntryRecord['state']): EntryRecord => ({ ...newEntryRecord(contentKey, 1), state });
      const stateOf = async (key: string) => (await store.get('SELECT state FROM watch_entries WHERE content_key = ?', [key]))?.['state'];
      await journal.saveEntry(record('a', 'discovered'));
      await journal.saveEntry(record('a', 'uploading'), { deferred: true });
      // Another row's write takes it along; a later state of the same row always wins.
      await journal.saveEntry(record('b', 'discovered'));
      expect(await stateOf('a')).toBe('uploading');
      await journal.saveEntry(record('a', 'submitted'), { deferred: true });
      await journal.saveEntry(record('a', 'done'));
      expect(await stateOf('a')).toBe('done');
      // Alone, it is written after a short while; flushed() includes it at once.
      await journal.saveEntry(record('b', 'uploading'), { deferred: true });
      const until = Date.now() + 10_000;
      while ((await stateOf('b')) !== 'uploading' && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(await stateOf('b')).toBe('uploading');
      expect(await stateOf('a')).toBe('done');
      await journal.saveEntry(record('b', 'submitted'), { deferred: true });
      await journal.flushed();
      expect(await stateOf('b')).toBe('submitted');
    } finally {
      await store.close();
    }
  });
});

describe('the folder lock', () => {
  it('refuses a second owner while the first holds it, and is free again once released', async () => {
    const path = join(work, 'locks', 'f.lock');
    const release = await acquireFolderLock(path, '/in');
    await expect(acquireFolderLock(path, '/in')).rejects.toThrow(FolderLockedError);
    await expect(acquireFolderLock(path, '/in')).rejects.toThrow(`pid ${process.pid}`);
    release();
    release(); // twice is harmless
    const again = await acquireFolderLock(path, '/in');
    again();
    // a pid file left by an older version, naming a live process, is not a lock
    mkdirSync(join(work, 'locks'), { recursive: true });
    writeFileSync(path, `${process.ppid}\n`);
    const third = await acquireFolderLock(path, '/in');
    third();
  });
});

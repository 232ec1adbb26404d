// The preview pipeline's bookkeeping: a frame's listener promise settles once it is decoded (which
// releases main's next frame), latest wins (a frame still decoding when a newer one arrives is
// dropped and closed), a shown bitmap is closed when a newer one replaces it and when its job is
// forgotten, a frame counts as painted once a canvas drew it, and no bitmap is left open.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PreviewView } from '@shared/ipc/contract';
import { PreviewStore, type PreviewBitmap } from '../../src/renderer/src/lib/stores/previews.svelte';

/** A fake ImageBitmap: its size goes to 0 when closed, as a real one's does. */
class FakeBitmap implements PreviewBitmap {
  static open = new Set<FakeBitmap>();
  width = 512;
  height = 512;
  constructor(readonly seq: number) {
    FakeBitmap.open.add(this);
  }
  close(): void {
    if (!FakeBitmap.open.delete(this)) throw new Error(`closed twice: frame ${this.seq}`);
    this.width = 0;
    this.height = 0;
  }
}

beforeEach(() => {
  FakeBitmap.open.clear();
  // One "animation frame" later, as in the page.
  vi.stubGlobal('requestAnimationFrame', (callback: () => void) => setTimeout(callback, 0));
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

function frame(seq: number, promptId = 'job-1'): PreviewView {
  return { promptId, nodeId: '3', mime: 'image/jpeg', bytes: new Uint8Array([0xff, 0xd8, 0xff, seq]), seq };
}

const decodeNow = async (f: PreviewView): Promise<PreviewBitmap> => new FakeBitmap(f.seq);

/** A decoder the test releases by hand, in order. */
function manualDecoder(): { decode: (f: PreviewView) => Promise<PreviewBitmap | null>; finish: (ok?: boolean) => void } {
  const waiting: { seq: number; resolve: (b: PreviewBitmap | null) => void }[] = [];
  return {
    decode: (f) => new Promise((resolve) => waiting.push({ seq: f.seq, resolve })),
    finish: (ok = true) => {
      const next = waiting.shift();
      next?.resolve(ok ? new FakeBitmap(next.seq) : null);
    },
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 3; i += 1) await tick();
  return done;
}

/** What a LivePreview does when the store's frame changes: draw it, tell the store. */
function draw(store: PreviewStore, promptId = 'job-1'): number | null {
  const shown = store.frames.get(promptId);
  if (!shown || shown.bitmap.width === 0) return null;
  store.drawn(promptId, shown);
  return shown.seq;
}

describe('PreviewStore', () => {
  it('releases the next frame once this one is decoded, closes the one it replaces, and counts paints', async () => {
    const decoder = manualDecoder();
    const store = new PreviewStore(decoder.decode);
    store.watch('job-1');
    const first = store.accept(frame(1));
    expect(await settled(first)).toBe(false);
    expect(store.has('job-1')).toBe(false);
    decoder.finish();
    expect(await settled(first)).toBe(true);
    expect(draw(store)).toBe(1);
    await tick();
    expect(store.stats.painted).toBe(1);
    const bitmap1 = store.frames.get('job-1')!.bitmap;

    const second = store.accept(frame(2));
    decoder.finish();
    await second;
    // Replaced: the first bitmap is closed at once (the canvas keeps its pixels).
    expect(bitmap1.width).toBe(0);
    expect(draw(store)).toBe(2);
    await tick();
    expect(store.stats.paints.map((p) => p.seq)).toEqual([1, 2]);
    expect(store.stats.liveBitmaps).toBe(1);

    store.forget('job-1');
    expect(FakeBitmap.open.size).toBe(0);
    expect(store.stats).toMatchObject({ received: 2, painted: 2, unpainted: 0, liveBitmaps: 0 });
  });

  it('latest wins: a frame still decoding when a newer one arrives is dropped and closed', async () => {
    const decoder = manualDecoder();
    const store = new PreviewStore(decoder.decode);
    store.watch('job-1');
    const older = store.accept(frame(1));
    const newer = store.accept(frame(2));
    decoder.finish(); // frame 1 decoded, but frame 2 came meanwhile
    await older;
    expect(store.frames.has('job-1')).toBe(false);
    expect(FakeBitmap.open.size).toBe(0);
    decoder.finish();
    await newer;
    expect(store.frames.get('job-1')!.seq).toBe(2);
    expect(store.stats).toMatchObject({ received: 2, unpainted: 1, liveBitmaps: 1 });
  });

  it('counts a frame replaced before any canvas drew it as unpainted, and a paint only once', async () => {
    const store = new PreviewStore(decodeNow);
    store.watch('job-1');
    await store.accept(frame(1));
    await store.accept(frame(2));
    expect(draw(store)).toBe(2);
    // The stage and the card both draw it: one paint.
    draw(store);
    await tick();
    expect(store.stats).toMatchObject({ received: 2, painted: 1, unpainted: 1, liveBitmaps: 1 });
    expect(FakeBitmap.open.size).toBe(1);
  });

  it('drops an undecodable frame at once and keeps showing the last good one', async () => {
    let ok = true;
    const store = new PreviewStore(async (f) => (ok ? new FakeBitmap(f.seq) : null));
    store.watch('job-1');
    await store.accept(frame(1));
    const good = store.frames.get('job-1');
    ok = false;
    await store.accept(frame(2));
    expect(store.frames.get('job-1')).toBe(good);
    expect(good!.bitmap.width).toBe(512);
    expect(store.stats).toMatchObject({ received: 2, unpainted: 1, liveBitmaps: 1 });
  });

  it('keeps only the latest frame of a job nobody is watching, undecoded, and decodes it when someone does', async () => {
    const decode = vi.fn(decodeNow);
    const store = new PreviewStore(decode);
    await store.accept(frame(1));
    await store.accept(frame(2));
    await store.accept(frame(3));
    expect(decode).not.toHaveBeenCalled();
    expect(store.has('job-1')).toBe(true);
    expect(store.stats).toMatchObject({ received: 3, painted: 0, unpainted: 2, liveBitmaps: 0 });
    store.watch('job-1');
    await tick();
    expect(decode).toHaveBeenCalledTimes(1);
    expect(store.frames.get('job-1')!.seq).toBe(3);
    store.forget('job-1');
    expect(FakeBitmap.open.size).toBe(0);
    expect(store.stats).toMatchObject({ unpainted: 3, liveBitmaps: 0 });
  });

  it('closes a frame whose job was forgotten while it decoded (a job ending mid-decode leaves no bitmap)', async () => {
    const decoder = manualDecoder();
    const store = new PreviewStore(decoder.decode);
    store.watch('job-1');
    const late = store.accept(frame(1));
    // The job ends while its frame decodes.
    store.forget('job-1');
    decoder.finish();
    await late;
    expect(store.frames.has('job-1')).toBe(false);
    expect(FakeBitmap.open.size).toBe(0);
    expect(store.stats).toMatchObject({ received: 1, unpainted: 1, liveBitmaps: 0 });
    // A later run of a job with the same id is shown again: the forgetting does not linger.
    const next = store.accept(frame(2));
    decoder.finish();
    await next;
    expect(store.frames.has('job-1')).toBe(true);
  });

  it('keeps jobs apart', async () => {
    const store = new PreviewStore(decodeNow);
    store.watch('a');
    store.watch('b');
    await store.accept(frame(1, 'a'));
    await store.accept(frame(1, 'b'));
    draw(store, 'b');
    await tick();
    store.forget('a');
    expect(store.frames.has('a')).toBe(false);
    expect(store.frames.has('b')).toBe(true);
    expect(store.stats.paints.map((p) => p.promptId)).toEqual(['b']);
    expect(FakeBitmap.open.size).toBe(1);
  });
});

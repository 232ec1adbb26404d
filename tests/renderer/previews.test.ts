// The preview pipeline's bookkeeping: a frame's listener promise settles once it is decoded (which
// releases main's next frame), a frame counts as painted when the visible image loaded it, the
// URLs before it are revoked then, and nothing is left behind.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PreviewView } from '@shared/ipc/contract';
import { PreviewStore } from '../../src/renderer/src/lib/stores/previews.svelte';

const live = new Set<string>();
let counter = 0;

beforeEach(() => {
  live.clear();
  vi.spyOn(URL, 'createObjectURL').mockImplementation(() => {
    const url = `blob:test/${++counter}`;
    live.add(url);
    return url;
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation((url: string) => {
    if (!live.delete(url)) throw new Error(`revoked twice or unknown: ${url}`);
  });
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

/** A decoder the test releases by hand. */
function manualDecoder(): { decode: (url: string) => Promise<boolean>; finish: (ok: boolean) => void } {
  const waiting: ((ok: boolean) => void)[] = [];
  return {
    decode: () => new Promise<boolean>((resolve) => waiting.push(resolve)),
    finish: (ok) => waiting.shift()?.(ok),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 3; i += 1) await tick();
  return done;
}

describe('PreviewStore', () => {
  it('releases the next frame once this one is decoded, and revokes older URLs once it is painted', async () => {
    const decoder = manualDecoder();
    const store = new PreviewStore(decoder.decode);
    store.watch('job-1');
    const first = store.accept(frame(1));
    expect(await settled(first)).toBe(false);
    expect(store.urls.has('job-1')).toBe(false);
    decoder.finish(true);
    expect(await settled(first)).toBe(true);
    const url1 = store.urls.get('job-1')!;
    store.loaded('job-1', url1, true);
    await tick();
    expect(store.stats.painted).toBe(1);

    const second = store.accept(frame(2));
    decoder.finish(true);
    await second;
    const url2 = store.urls.get('job-1')!;
    expect(url2).not.toBe(url1);
    // The first URL stays valid until the second is on screen.
    expect(live.has(url1)).toBe(true);
    store.loaded('job-1', url2, true);
    await tick();
    expect([...live]).toEqual([url2]);
    expect(store.stats.paints.map((p) => p.seq)).toEqual([1, 2]);
    expect(store.stats.liveObjectUrls).toBe(1);

    store.forget('job-1');
    expect(live.size).toBe(0);
    expect(store.stats).toMatchObject({ received: 2, painted: 2, unpainted: 0, liveObjectUrls: 0 });
  });

  it('skips a frame replaced before the image loaded it, counting it unpainted', async () => {
    const store = new PreviewStore(async () => true);
    store.watch('job-1');
    await store.accept(frame(1));
    const url1 = store.urls.get('job-1')!;
    await store.accept(frame(2));
    const url2 = store.urls.get('job-1')!;
    // The image loads only the newer one (its src changed before the first finished).
    store.loaded('job-1', url2, true);
    await tick();
    expect(live.has(url1)).toBe(false);
    expect(store.stats).toMatchObject({ received: 2, painted: 1, unpainted: 1, liveObjectUrls: 1 });
    // A late load event of the revoked frame changes nothing.
    store.loaded('job-1', url1, true);
    await tick();
    expect(store.stats.painted).toBe(1);
  });

  it('drops an undecodable frame at once and keeps showing the last good one', async () => {
    let ok = true;
    const store = new PreviewStore(async () => ok);
    store.watch('job-1');
    await store.accept(frame(1));
    const good = store.urls.get('job-1');
    ok = false;
    await store.accept(frame(2));
    expect(store.urls.get('job-1')).toBe(good);
    expect(store.stats).toMatchObject({ received: 2, unpainted: 1, liveObjectUrls: 1 });
    expect([...live]).toEqual([good]);
  });

  it('keeps only the latest frame of a job nobody is watching, without decoding it', async () => {
    const decode = vi.fn(async () => true);
    const store = new PreviewStore(decode);
    await store.accept(frame(1));
    await store.accept(frame(2));
    await store.accept(frame(3));
    expect(decode).not.toHaveBeenCalled();
    expect(live.size).toBe(1);
    expect(store.stats).toMatchObject({ received: 3, painted: 0, unpainted: 2, liveObjectUrls: 1 });
    store.forget('job-1');
    expect(store.stats).toMatchObject({ unpainted: 3, liveObjectUrls: 0 });
  });

  it('releases a frame whose job was forgotten while it decoded (a job ending mid-decode leaves no URL)', async () => {
    const decoder = manualDecoder();
    const store = new PreviewStore(decoder.decode);
    store.watch('job-1');
    const late = store.accept(frame(1));
    // The job ends while its frame decodes.
    store.forget('job-1');
    decoder.finish(true);
    await late;
    expect(store.urls.has('job-1')).toBe(false);
    expect(live.size).toBe(0);
    expect(store.stats).toMatchObject({ received: 1, unpainted: 1, liveObjectUrls: 0 });
    // A later run of a job with the same id is shown again: the forgetting does not linger.
    const next = store.accept(frame(2));
    decoder.finish(true);
    await next;
    expect(store.urls.has('job-1')).toBe(true);
  });

  it('keeps jobs apart', async () => {
    const store = new PreviewStore(async () => true);
    store.watch('a');
    store.watch('b');
    await store.accept(frame(1, 'a'));
    await store.accept(frame(1, 'b'));
    store.loaded('b', store.urls.get('b')!, true);
    await tick();
    store.forget('a');
    expect(store.urls.has('a')).toBe(false);
    expect(store.urls.has('b')).toBe(true);
    expect(store.stats.paints.map((p) => p.promptId)).toEqual(['b']);
  });
});

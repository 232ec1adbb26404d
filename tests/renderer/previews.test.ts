// The preview pipeline's bookkeeping: each frame's listener promise settles only once the frame is
// painted (or cannot be), the previous object URL is revoked then, and nothing is left behind.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PreviewView } from '../../src/shared/ipc/contract';
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

/** Resolves true when the promise settled within a few macrotasks. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 5; i += 1) await new Promise((r) => setTimeout(r, 0));
  return done;
}

describe('PreviewStore', () => {
  it('holds each frame until the visible image has loaded it, then revokes the one before', async () => {
    const store = new PreviewStore();
    const unwatch = store.watch('job-1');
    const first = store.accept(frame(1));
    const url1 = store.urls.get('job-1')!;
    expect(await settled(first)).toBe(false);
    store.loaded('job-1', url1, true);
    expect(await settled(first)).toBe(true);
    expect(store.stats.painted).toBe(1);

    const second = store.accept(frame(2));
    const url2 = store.urls.get('job-1')!;
    expect(url2).not.toBe(url1);
    // The first URL stays valid until the second is on screen.
    expect(live.has(url1)).toBe(true);
    store.loaded('job-1', url2, true);
    await second;
    expect(live.has(url1)).toBe(false);
    expect([...live]).toEqual([url2]);
    expect(store.stats.paints.map((p) => p.seq)).toEqual([1, 2]);
    expect(store.stats.liveObjectUrls).toBe(1);

    unwatch();
    store.forget('job-1');
    expect(live.size).toBe(0);
    expect(store.stats.liveObjectUrls).toBe(0);
  });

  it('does not wait for a paint nobody can see, and counts it as unpainted', async () => {
    const store = new PreviewStore();
    await store.accept(frame(1));
    expect(store.stats).toMatchObject({ received: 1, painted: 0, unpainted: 1 });
    await store.accept(frame(2));
    expect(live.size).toBe(1);
  });

  it('settles a frame whose image fails to decode, or whose card goes away', async () => {
    const store = new PreviewStore();
    const unwatch = store.watch('job-1');
    const broken = store.accept(frame(1));
    store.loaded('job-1', store.urls.get('job-1')!, false);
    await broken;
    const orphan = store.accept(frame(2));
    expect(await settled(orphan)).toBe(false);
    unwatch();
    await orphan;
    expect(store.stats).toMatchObject({ received: 2, painted: 0, unpainted: 2 });
  });

  it('ignores a load event of a frame that is no longer the pending one', async () => {
    const store = new PreviewStore();
    store.watch('job-1');
    const first = store.accept(frame(1));
    const url1 = store.urls.get('job-1')!;
    store.loaded('job-1', url1, true);
    await first;
    const second = store.accept(frame(2));
    store.loaded('job-1', url1, true); // a late load of the old image
    expect(await settled(second)).toBe(false);
    store.loaded('job-1', store.urls.get('job-1')!, true);
    expect(await settled(second)).toBe(true);
  });

  it('keeps jobs apart', async () => {
    const store = new PreviewStore();
    store.watch('a');
    store.watch('b');
    const a = store.accept(frame(1, 'a'));
    const b = store.accept(frame(1, 'b'));
    store.loaded('b', store.urls.get('b')!, true);
    expect(await settled(b)).toBe(true);
    expect(await settled(a)).toBe(false);
    store.forget('a');
    expect(await settled(a)).toBe(true);
    expect(store.urls.has('a')).toBe(false);
  });
});

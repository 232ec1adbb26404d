// The grid's sparse result list against a small in-memory list standing in for main's index
// (newest first, filtered by type, paged by offset), with fetches that can be held back to
// reproduce events arriving while a page is on its way.
import { describe, expect, it } from 'vitest';
import type { LibraryFilterView, LibraryItemView } from '@shared/ipc/library-contract';
import { LibraryResults } from '../../src/renderer/src/lib/library/results';

function item(id: number, overrides: Partial<LibraryItemView> = {}): LibraryItemView {
  return {
    id,
    promptId: `job-${id}`,
    fileName: `out_${id}.png`,
    mediaKind: 'image',
    mime: 'image/png',
    size: 1,
    width: 1,
    height: 1,
    durationMs: null,
    createdAt: 1_000_000 + id,
    status: 'done',
    error: null,
    workflowName: 'wf',
    profileId: 'demo',
    serverUrl: 'http://x',
    hasFile: true,
    ...overrides,
  };
}

class FakeIndex {
  items: LibraryItemView[];
  requests: LibraryFilterView[] = [];
  held: (() => void)[] = [];
  hold = false;

  constructor(count: number) {
    this.items = Array.from({ length: count }, (_, k) => item(count - k));
  }

  fetch = async (filter: LibraryFilterView): Promise<{ items: LibraryItemView[]; total: number }> => {
    this.requests.push(filter);
    if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
    const matching = this.items.filter((i) => filter.type === undefined || i.mediaKind === filter.type);
    const offset = filter.offset ?? 0;
    return { items: matching.slice(offset, offset + (filter.limit ?? 200)), total: matching.length };
  };

  release(): void {
    for (const resolve of this.held.splice(0)) resolve();
  }
}

function setup(count: number, pageSize = 10) {
  const index = new FakeIndex(count);
  const errors: string[] = [];
  let changes = 0;
  const results = new LibraryResults({ fetchPage: index.fetch, pageSize, onChange: () => (changes += 1), onError: (m) => errors.push(m) });
  return { index, results, errors, changes: () => changes };
}

const ids = (results: LibraryResults, from: number, to: number): (number | undefined)[] =>
  Array.from({ length: to - from }, (_, k) => results.at(from + k)?.id);

describe('library results', () => {
  it('learns the total from the first page and fetches only the pages scrolled over, once', async () => {
    const { index, results } = setup(10_000, 100);
    await results.reset({});
    expect(results.total).toBe(10_000);
    expect(results.at(0)?.id).toBe(10_000);
    expect(results.at(100)).toBeUndefined();
    await results.ensure(5_050, 5_130);
    expect(index.requests.map((r) => r.offset)).toEqual([0, 5_000, 5_100]);
    expect(results.at(5_050)?.id).toBe(10_000 - 5_050);
    await Promise.all([results.ensure(5_000, 5_200), results.ensure(5_000, 5_200)]);
    expect(index.requests).toHaveLength(3);
    expect(index.requests.every((r) => r.limit === 100)).toBe(true);
  });

  it('drops the answers of an older filter', async () => {
    const { index, results } = setup(30);
    await results.reset({});
    index.hold = true;
    const old = results.ensure(20, 30);
    index.hold = false;
    index.items[0] = item(99, { mediaKind: 'video' });
    await results.reset({ type: 'video' });
    index.release();
    await old;
    expect(results.total).toBe(1);
    expect(results.at(0)?.id).toBe(99);
    expect(results.at(20)).toBeUndefined();
  });

  it('updates items in place, closes the gap of removed ones and puts new matching ones on top', async () => {
    const { results, changes } = setup(25);
    await results.reset({});
    await results.ensure(0, 25);
    const before = changes();
    results.apply({ added: [], updated: [item(20, { status: 'failed', error: 'gone' })], removed: [] });
    expect(results.at(5)?.status).toBe('failed');
    const left = results.apply({ added: [], updated: [], removed: [24, 3] });
    expect(left.sort()).toEqual([24, 3].sort());
    expect(results.total).toBe(23);
    expect(ids(results, 0, 3)).toEqual([25, 23, 22]);
    results.apply({ added: [item(30), item(31, { mediaKind: 'audio' })], updated: [], removed: [] });
    expect(results.total).toBe(25);
    expect(ids(results, 0, 3)).toEqual([31, 30, 25]);
    expect(changes()).toBeGreaterThan(before);
    expect(results.stale).toBe(false);
  });

  it('leaves non-matching arrivals out and lets main place what it alone can judge', async () => {
    const { results } = setup(5);
    await results.reset({ type: 'image' });
    results.apply({ added: [item(40, { mediaKind: 'video' })], updated: [], removed: [] });
    expect(results.total).toBe(5);
    expect(results.stale).toBe(false);
    // An item older than the newest shown cannot simply go on top.
    results.apply({ added: [item(0, { createdAt: 10 })], updated: [], removed: [] });
    expect(results.total).toBe(5);
    expect(results.stale).toBe(true);

    const search = setup(5);
    await search.results.reset({ query: 'lighthouse' });
    search.results.apply({ added: [item(50)], updated: [], removed: [] });
    expect(search.results.stale).toBe(true);
    expect(search.results.total).toBe(5);
  });

  it('an update that takes an item out of the filter removes it', async () => {
    const { results } = setup(5);
    await results.reset({ type: 'image' });
    const left = results.apply({ added: [], updated: [item(3, { mediaKind: 'other' })], removed: [] });
    expect(left).toEqual([3]);
    expect(ids(results, 0, 4)).toEqual([5, 4, 2, 1]);
  });

  it('a page on its way while items move is dropped and fetched again at the new offsets', async () => {
    const { index, results } = setup(30);
    await results.reset({});
    index.hold = true;
    const pending = results.ensure(10, 20);
    await Promise.resolve();
    index.items.unshift(item(31));
    results.apply({ added: [item(31)], updated: [], removed: [] });
    index.release();
    await pending;
    index.hold = false;
    // Nothing landed shifted by one: the page is missing, not wrong.
    expect(results.at(11)).toBeUndefined();
    await results.ensure(10, 21);
    expect(ids(results, 10, 21)).toEqual(Array.from({ length: 11 }, (_, k) => 31 - 10 - k));
  });

  it('a page whose total disagrees marks the result stale instead of landing shifted', async () => {
    const { index, results } = setup(30);
    await results.reset({});
    index.items.unshift(item(31)); // main knows, no event yet
    await results.ensure(10, 20);
    expect(results.at(10)).toBeUndefined();
    expect(results.stale).toBe(true);
  });

  it('reports a failed page in words and can ask again', async () => {
    let fail = true;
    const index = new FakeIndex(30);
    const errors: string[] = [];
    const results = new LibraryResults({
      fetchPage: (filter) => (fail && (filter.offset ?? 0) > 0 ? Promise.reject(new Error('the library is closed')) : index.fetch(filter)),
      pageSize: 10,
      onChange: () => undefined,
      onError: (m) => errors.push(m),
    });
    await results.reset({});
    await results.ensure(10, 20);
    expect(errors).toEqual(['the library is closed']);
    fail = false;
    await results.ensure(10, 20);
    expect(results.at(10)?.id).toBe(20);
  });
});

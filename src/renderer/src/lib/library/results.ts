// The current result of the library's filters as a sparse list: `total` slots, filled page by page
// as the grid scrolls over them (only what was seen is ever fetched), and kept in step with
// `library.changed` in place: updates replace items where they are, removals close the gap, new
// items that match go to the top (the list is newest first). Plain TypeScript with the fetch
// injected, so it is tested without a DOM or an app; the store wraps it for Svelte.
import type { LibraryChangedView, LibraryFilterView, LibraryItemView } from '@shared/ipc/library-contract';
import { matchesFilter } from './filters';

export type PageFetcher = (filter: LibraryFilterView) => Promise<{ items: LibraryItemView[]; total: number }>;

export interface ResultsOptions {
  fetchPage: PageFetcher;
  /** Items per request. */
  pageSize?: number;
  /** Called after every change of the slots or the total (the store bumps a revision). */
  onChange: () => void;
  /** A page failed to load: why, in plain words (the store shows it). */
  onError: (message: string) => void;
}

export const DEFAULT_PAGE_SIZE = 120;

export class LibraryResults {
  #slots: (LibraryItemView | undefined)[] = [];
  #total = 0;
  #filter: LibraryFilterView = {};
  /** Changes with every new filter: answers for an older filter are dropped. */
  #generation = 0;
  /** Changes whenever items move (insert, removal): a page fetched before then lands elsewhere. */
  #layoutVersion = 0;
  readonly #inFlight = new Set<number>();
  readonly #pageSize: number;
  readonly #options: ResultsOptions;
  /** Whether the first page of the current filter has answered (the total is known). */
  loaded = false;
  /** Set when something changed that only main can place (e.g. an item added during a search). */
  stale = false;

  constructor(options: ResultsOptions) {
    this.#options = options;
    this.#pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  }

  get total(): number {
    return this.#total;
  }

  get filter(): LibraryFilterView {
    return this.#filter;
  }

  at(index: number): LibraryItemView | undefined {
    return this.#slots[index];
  }

  indexOfId(id: number): number {
    return this.#slots.findIndex((item) => item?.id === id);
  }

  /** Starts over with a filter: the first page is fetched at once (it tells the total). */
  async reset(filter: LibraryFilterView): Promise<void> {
    this.#filter = filter;
    this.#generation += 1;
    this.#layoutVersion += 1;
    this.#inFlight.clear();
    this.stale = false;
    await this.#fetch(0, true);
  }

  /** Fetches every page touching [start, end) that is neither loaded nor on its way. */
  ensure(start: number, end: number): Promise<void> {
    const jobs: Promise<void>[] = [];
    const last = Math.min(end, this.#total);
    for (let page = Math.floor(Math.max(0, start) / this.#pageSize); page * this.#pageSize < last; page += 1) {
      const from = page * this.#pageSize;
      const to = Math.min(this.#total, from + this.#pageSize);
      let missing = false;
      for (let i = from; i < to && !missing; i += 1) missing = this.#slots[i] === undefined;
      if (missing && !this.#inFlight.has(page)) jobs.push(this.#fetch(page, false));
    }
    return Promise.all(jobs).then(() => undefined);
  }

  async #fetch(page: number, first: boolean): Promise<void> {
    const generation = this.#generation;
    const layout = this.#layoutVersion;
    this.#inFlight.add(page);
    try {
      const answer = await this.#options.fetchPage({ ...this.#filter, offset: page * this.#pageSize, limit: this.#pageSize });
      if (generation !== this.#generation) return;
      if (first) {
        this.#slots = new Array<LibraryItemView | undefined>(answer.total);
        this.#total = answer.total;
        this.loaded = true;
      } else if (layout !== this.#layoutVersion) {
        // Items moved while this page was on its way: its offsets are no longer ours. The grid asks
        // again for whatever is still missing.
        return;
      } else if (answer.total !== this.#total) {
        // Main's result changed in a way no event told yet: the event is coming; until then the
        // page would land shifted. Mark stale so the store refetches once things settle.
        this.stale = true;
        return;
      }
      answer.items.forEach((item, k) => {
        const index = page * this.#pageSize + k;
        if (index < this.#total) this.#slots[index] = item;
      });
      this.#options.onChange();
    } catch (error) {
      if (generation === this.#generation) this.#options.onError(error instanceof Error ? error.message : String(error));
    } finally {
      if (generation === this.#generation) this.#inFlight.delete(page);
    }
  }

  /** Applies a `library.changed` event. Returns the ids that left the result. */
  apply(change: LibraryChangedView): number[] {
    let moved = false;
    let touched = false;
    const left: number[] = [];
    const removed = new Set(change.removed);
    for (const item of change.updated) {
      const index = this.indexOfId(item.id);
      if (index < 0) continue;
      // An update can also take an item out of the result (its type became known on download).
      if (matchesFilter(item, this.#filter) === 'no') removed.add(item.id);
      else this.#slots[index] = item;
      touched = true;
    }
    if (removed.size > 0) {
      const before = this.#slots.length;
      const kept: (LibraryItemView | undefined)[] = [];
      for (const slot of this.#slots) {
        if (slot && removed.has(slot.id)) left.push(slot.id);
        else kept.push(slot);
      }
      if (kept.length !== before) {
        this.#slots = kept;
        this.#total = kept.length;
        moved = true;
      }
      // A removed item that was never loaded still left main's count: refetch to know the total.
      if (left.length < change.removed.length) this.stale = true;
    }
    const fresh = change.added.filter((item) => this.indexOfId(item.id) < 0).sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
    const top: LibraryItemView[] = [];
    for (const item of fresh) {
      const verdict = matchesFilter(item, this.#filter);
      if (verdict === 'no') continue;
      const newest = this.#slots[0];
      // Only what is newer than the newest shown surely goes on top; anything else is placed by main.
      if (verdict === 'unknown' || (newest !== undefined && item.createdAt < newest.createdAt) || (newest === undefined && this.#total > 0)) {
        this.stale = true;
        continue;
      }
      top.push(item);
    }
    if (top.length > 0) {
      this.#slots = [...top, ...this.#slots];
      this.#total += top.length;
      moved = true;
    }
    if (moved) this.#layoutVersion += 1;
    if (moved || touched) this.#options.onChange();
    return left;
  }
}

// The Library view's controller: the toolbar's filters, the current result (a sparse list filled
// as the grid scrolls), the selection, the detail of the opened item, and the item actions that
// need no other store (delete, retry, open / show in folder, the file's bytes). Failures are kept
// as plain messages where the user acted.
import { SvelteSet } from 'svelte/reactivity';
import type { LibraryDetailView, LibraryItemView } from '@shared/ipc/library-contract';
import { libraryMediaUrl } from '@shared/library-media';
import { messageOf, type Api } from '../api';
import { dateRangeProblem, NO_FILTERS, toListFilter, type LibraryFilters } from './filters';
import { LibraryResults } from './results';
import { deleteMessage } from './delete-message';

type Facets = { workflows: { name: string; count: number }[]; servers: { server: string; label: string; count: number }[] };
type Info = { libraryDir: string; mediaBase: string; canReveal: boolean; nextLibraryDir: string; fromEnvironment: boolean };

/** How long typing pauses before the search runs. */
export const SEARCH_DEBOUNCE_MS = 250;
/** Events that only main can place are gathered this long before asking main again. */
const STALE_REFRESH_MS = 400;

export class LibraryStore {
  info = $state.raw<Info | null>(null);
  facets = $state.raw<Facets>({ workflows: [], servers: [] });
  filters = $state<LibraryFilters>({ ...NO_FILTERS });
  /** Bumped whenever the result's slots change; the grid reads items through it. */
  revision = $state(0);
  total = $state(0);
  loaded = $state(false);
  loadError = $state<string | null>(null);
  /** Index of the selected tile in the result, or null. */
  selected = $state<number | null>(null);
  /** The item whose detail panel is open. */
  detail = $state.raw<LibraryDetailView | null>(null);
  detailError = $state<string | null>(null);
  /** The outcome of the last action (delete, retry, copy...), for the panel's status line. */
  actionMessage = $state<{ tone: 'error' | 'info'; text: string } | null>(null);
  /** Ids whose thumbnail failed to load: they show their type icon (no second request). */
  readonly brokenThumbnails = new SvelteSet<number>();
  /** Bumped when the user's filters are applied (the grid goes back to the top). */
  filterGeneration = $state(0);
  rangeProblem = $derived(dateRangeProblem(this.filters));

  readonly #api: Api;
  readonly results: LibraryResults;
  #searchTimer: ReturnType<typeof setTimeout> | null = null;
  #staleTimer: ReturnType<typeof setTimeout> | null = null;
  #openToken = 0;

  constructor(api: Api) {
    this.#api = api;
    this.results = new LibraryResults({
      fetchPage: (filter) => api.call('library.list', filter),
      onChange: () => this.#sync(),
      onError: (message) => (this.loadError = `The library could not be read: ${message}`),
    });
  }

  attach(): () => void {
    return this.#api.on('library.changed', (change) => {
      const selectedId = this.selectedItem?.id ?? null;
      const left = this.results.apply(change);
      if (this.detail && change.removed.includes(this.detail.id)) this.detail = null;
      const updatedDetail = this.detail ? change.updated.find((item) => item.id === this.detail?.id) : undefined;
      if (updatedDetail) void this.open(updatedDetail.id, { keepMessage: true });
      if (change.added.length > 0 || change.removed.length > 0) void this.#loadFacets();
      this.#restoreSelection(selectedId, left);
      this.#sync();
    });
  }

  /** The view was shown: what the library is, its facets and the first page. */
  async load(): Promise<void> {
    await Promise.all([this.#loadInfo(), this.#loadFacets(), this.refresh()]);
  }

  /** Asks main again for the current filters (keeps the selection when the item is still there). */
  async refresh(): Promise<void> {
    const selectedId = this.selectedItem?.id ?? null;
    this.loadError = null;
    await this.results.reset(toListFilter(this.filters));
    this.#sync();
    this.#restoreSelection(selectedId, []);
  }

  /** A filter changed: the search text waits for a pause in typing, the others apply at once. */
  filtersChanged(debounce: boolean): void {
    if (this.#searchTimer) clearTimeout(this.#searchTimer);
    this.#searchTimer = null;
    if (this.rangeProblem) return;
    const apply = (): void => {
      this.#searchTimer = null;
      this.selected = null;
      this.filterGeneration += 1;
      void this.refresh();
    };
    if (debounce) this.#searchTimer = setTimeout(apply, SEARCH_DEBOUNCE_MS);
    else apply();
  }

  clearFilters(): void {
    this.filters = { ...NO_FILTERS };
    this.filtersChanged(false);
  }

  /** The grid shows [start, end): fetch what is missing there. */
  ensure(start: number, end: number): void {
    void this.results.ensure(start, end);
  }

  /** The item at a result index; reading it ties the caller to `revision`. */
  itemAt(index: number): LibraryItemView | undefined {
    void this.revision;
    return this.results.at(index);
  }

  get selectedItem(): LibraryItemView | undefined {
    return this.selected === null ? undefined : this.itemAt(this.selected);
  }

  thumbnailUrl(item: LibraryItemView): string | null {
    if (!this.info || item.mediaKind !== 'image' || !item.hasFile || this.brokenThumbnails.has(item.id)) return null;
    return libraryMediaUrl(this.info.mediaBase, 'thumb', item.id);
  }

  fileUrl(item: { id: number; hasFile: boolean }): string | null {
    return this.info && item.hasFile ? libraryMediaUrl(this.info.mediaBase, 'file', item.id) : null;
  }

  select(index: number | null): void {
    this.selected = index === null || this.results.total === 0 ? null : Math.max(0, Math.min(this.results.total - 1, index));
  }

  /** Opens the detail panel on an item (fetches everything known about it). */
  async open(id: number, options: { keepMessage?: boolean } = {}): Promise<void> {
    if (!options.keepMessage) this.actionMessage = null;
    this.detailError = null;
    // A later open wins over a slower earlier one.
    const token = ++this.#openToken;
    try {
      const detail = await this.#api.call('library.get', { id });
      if (token === this.#openToken) this.detail = detail;
    } catch (error) {
      if (token === this.#openToken) this.detailError = `The details of this output could not be read: ${messageOf(error)}`;
    }
  }

  closeDetail(): void {
    this.detail = null;
    this.detailError = null;
  }

  /** Moves the items' files to the OS trash and forgets them. */
  async remove(ids: number[]): Promise<boolean> {
    try {
      const result = await this.#api.call('library.delete', { ids });
      if (result.failed.length > 0) {
        this.actionMessage = { tone: 'error', text: result.failed.map((f) => f.message).join('\n') };
        return false;
      }
      if (this.detail && ids.includes(this.detail.id)) this.detail = null;
      this.actionMessage = { tone: 'info', text: deleteMessage(result.removed, result.keptShared ?? 0) };
      // The event removes the tiles; asking again covers a window that missed it.
      this.#scheduleStaleRefresh();
      return true;
    } catch (error) {
      this.actionMessage = { tone: 'error', text: `The output could not be deleted: ${messageOf(error)}` };
      return false;
    }
  }

  async retry(id: number): Promise<void> {
    try {
      await this.#api.call('library.retry', { id });
      this.actionMessage = { tone: 'info', text: 'Downloading again.' };
    } catch (error) {
      this.actionMessage = { tone: 'error', text: `The download could not be restarted: ${messageOf(error)}` };
    }
  }

  async reveal(id: number, action: 'open' | 'folder'): Promise<void> {
    try {
      await this.#api.call('library.reveal', { id, action });
    } catch (error) {
      this.actionMessage = {
        tone: 'error',
        text: `${action === 'open' ? 'The file could not be opened' : 'The folder could not be shown'}: ${messageOf(error)}`,
      };
    }
  }

  bytes(id: number): Promise<{ mime: string; bytes: Uint8Array }> {
    return this.#api.call('library.bytes', { id });
  }

  /** Reads the folder settings again (after the library folder was changed). */
  refreshInfo(): Promise<void> {
    return this.#loadInfo();
  }

  async #loadInfo(): Promise<void> {
    try {
      this.info = await this.#api.call('library.info');
    } catch (error) {
      this.loadError = `The library could not be opened: ${messageOf(error)}`;
    }
  }

  async #loadFacets(): Promise<void> {
    try {
      this.facets = await this.#api.call('library.facets');
    } catch {
      // The selects keep what they had; the list itself reports failures.
    }
  }

  #restoreSelection(selectedId: number | null, left: number[]): void {
    if (selectedId === null) return;
    const index = this.results.indexOfId(selectedId);
    if (index >= 0) this.selected = index;
    else if (left.includes(selectedId)) this.select(this.selected);
  }

  #sync(): void {
    this.total = this.results.total;
    this.loaded = this.results.loaded;
    this.revision += 1;
    if (this.selected !== null && this.selected >= this.total) this.select(this.total - 1);
    if (this.results.stale) this.#scheduleStaleRefresh();
  }

  #scheduleStaleRefresh(): void {
    if (this.#staleTimer) return;
    this.#staleTimer = setTimeout(() => {
      this.#staleTimer = null;
      if (this.results.stale) void this.refresh();
    }, STALE_REFRESH_MS);
  }
}

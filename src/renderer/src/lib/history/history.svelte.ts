// The History view's state: one page of past jobs from the app's journal or the active server's
// history (history.list), and their output files (fetched through main, shown from blob URLs that
// are released when the page changes).
import type { HistoryPageView, HistorySource } from '@shared/ipc/contract';
import { messageOf, type Api } from '../api';
import { OutputStore } from '../stores/outputs.svelte';

export const HISTORY_PAGE_SIZE = 20;

export class HistoryStore {
  source = $state<HistorySource>('app');
  page = $state.raw<HistoryPageView | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);
  readonly outputs: OutputStore;
  readonly #api: Api;
  #token = 0;

  constructor(api: Api) {
    this.#api = api;
    this.outputs = new OutputStore(api);
  }

  /** Reads the page at `offset` of `source` (a later request wins over a slower earlier one). */
  async load(source: HistorySource = this.source, offset = 0): Promise<void> {
    const token = ++this.#token;
    this.source = source;
    this.loading = true;
    this.error = null;
    try {
      const page = await this.#api.call('history.list', { source, offset, limit: HISTORY_PAGE_SIZE });
      if (token !== this.#token) return;
      this.#releaseOutputs();
      this.page = page;
      for (const entry of page.entries) if (entry.outputs.length > 0) this.outputs.ensure(entry.promptId, entry.outputs);
    } catch (error) {
      if (token === this.#token) this.error = messageOf(error);
    } finally {
      if (token === this.#token) this.loading = false;
    }
  }

  next(): Promise<void> {
    return this.load(this.source, (this.page?.offset ?? 0) + HISTORY_PAGE_SIZE);
  }

  previous(): Promise<void> {
    return this.load(this.source, Math.max(0, (this.page?.offset ?? 0) - HISTORY_PAGE_SIZE));
  }

  dispose(): void {
    this.#token += 1;
    this.#releaseOutputs();
  }

  #releaseOutputs(): void {
    for (const promptId of [...this.outputs.byJob.keys()]) this.outputs.release(promptId);
  }
}

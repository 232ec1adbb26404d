// Recently opened workflow files (main remembers them; the list is re-read after each open).
import type { Api } from '../api';

export interface RecentItem {
  path: string;
  name: string;
}

export class RecentStore {
  items = $state<RecentItem[]>([]);
  readonly #api: Api;

  constructor(api: Api) {
    this.#api = api;
  }

  async refresh(): Promise<void> {
    try {
      this.items = (await this.#api.call('workflow.recent')).items;
    } catch {
      // The list is a convenience: without it the picker and drag and drop still work.
      this.items = [];
    }
  }
}

// The server's queue (running and pending jobs), refreshed by queue.changed events, with a
// selection for "Cancel selected".
import { SvelteSet } from 'svelte/reactivity';
import type { QueueView } from '@shared/ipc/contract';
import { messageOf, type Api } from '../api';

export class QueueStore {
  queue = $state<QueueView>({ running: [], pending: [] });
  readonly selected = new SvelteSet<string>();
  loading = $state(false);
  busy = $state(false);
  error = $state<string | null>(null);
  readonly #api: Api;
  /** Told which jobs the user asked to stop, so their cards can say "cancelled" rather than "stopped". */
  readonly #onStop: (promptIds: string[]) => void;

  constructor(api: Api, onStop: (promptIds: string[]) => void = () => undefined) {
    this.#api = api;
    this.#onStop = onStop;
  }

  attach(): () => void {
    return this.#api.on('queue.changed', (queue) => this.#apply(queue));
  }

  async refresh(): Promise<void> {
    this.loading = true;
    await this.#act(() => this.#api.call('queue.get'));
    this.loading = false;
  }

  cancelSelected(): Promise<void> {
    const ids = [...this.selected];
    if (ids.length === 0) return Promise.resolve();
    this.#onStop(ids);
    return this.#act(() => this.#api.call('queue.cancel', { promptIds: ids }));
  }

  /** Interrupts the running job; names it when there is exactly one, so a local server stops only that one. */
  interrupt(): Promise<void> {
    const running = this.queue.running;
    const only = running.length === 1 ? running[0]?.promptId : undefined;
    this.#onStop(running.map((e) => e.promptId));
    return this.#act(() => this.#api.call('queue.interrupt', only ? { promptId: only } : {}));
  }

  clearPending(): Promise<void> {
    this.#onStop(this.queue.pending.map((e) => e.promptId));
    return this.#act(() => this.#api.call('queue.clearPending'));
  }

  async #act(action: () => Promise<QueueView>): Promise<void> {
    this.busy = true;
    this.error = null;
    try {
      this.#apply(await action());
    } catch (error) {
      this.error = messageOf(error);
    } finally {
      this.busy = false;
    }
  }

  #apply(queue: QueueView): void {
    this.queue = queue;
    // A job that left the queue cannot stay selected.
    const present = new Set([...queue.running, ...queue.pending].map((e) => e.promptId));
    for (const id of [...this.selected]) if (!present.has(id)) this.selected.delete(id);
  }
}

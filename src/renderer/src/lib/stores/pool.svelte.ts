// The pool: its servers as saved (pool.get / pool.save, kept fresh by pool.changed), the running
// pool's status (pool.status events), and each pool server's queue for the Queue view
// (pool.queues, read while that view is open).
import type { PoolQueueView, PoolSaveInput, PoolServerView, PoolStatusView } from '@shared/ipc/contract';
import { messageOf, type Api } from '../api';

export const NO_POOL_STATUS: PoolStatusView = { active: false, members: [], jobsPerMinute: 0 };

export class PoolStore {
  servers = $state<PoolServerView[]>([]);
  status = $state<PoolStatusView>(NO_POOL_STATUS);
  queues = $state<PoolQueueView[]>([]);
  queuesError = $state<string | null>(null);
  loaded = $state(false);
  readonly #api: Api;

  constructor(api: Api) {
    this.#api = api;
  }

  attach(): () => void {
    const offs = [
      this.#api.on('pool.changed', ({ servers }) => {
        this.servers = servers;
      }),
      this.#api.on('pool.status', (status) => {
        this.status = status;
      }),
      // A renamed or removed profile changes the pool's names (a removed one leaves the pool).
      this.#api.on('profiles.changed', () => {
        void this.load().catch(() => undefined);
      }),
    ];
    return () => {
      for (const off of offs) off();
    };
  }

  async load(): Promise<void> {
    const [settings, status] = await Promise.all([this.#api.call('pool.get'), this.#api.call('pool.status')]);
    this.servers = settings.servers;
    this.status = status;
    this.loaded = true;
  }

  /** Saves the pool; rejects with main's CallError (every problem named) when it is refused. */
  async save(servers: PoolSaveInput['servers']): Promise<void> {
    this.servers = (await this.#api.call('pool.save', { servers })).servers;
  }

  async refreshQueues(): Promise<void> {
    try {
      this.queues = (await this.#api.call('pool.queues')).servers;
      this.queuesError = null;
    } catch (error) {
      this.queuesError = messageOf(error);
    }
  }
}

// The pool's contract calls: its settings (read, replaced after checking), every pool server's
// queue, and the running pool's status.
import type { CallHandlers, EventName, EventPayload, PoolQueueView, QueueView } from '@shared/ipc/contract';
import type { Profile, SettingsStore } from '@main/config/settings';
import { AppFailure } from './errors';
import { checkPoolEntries, poolSettingsView, type PoolProfiles } from './pool-settings';
import type { PoolHost } from './pool-host';
import { ownJobsNote, type ServerQueueRead } from './pool-queue';

type PoolCallName = 'pool.get' | 'pool.save' | 'pool.queues' | 'pool.status';

export interface PoolHandlerDeps extends Omit<PoolProfiles, 'profiles'> {
  settings: SettingsStore;
  pools: PoolHost;
  /** Restarts the hot folders so a running pool takes the new settings. */
  restartFolders: () => Promise<void>;
  /** A profile's queue, read from its server (or the app's own jobs there, when it has none). */
  queueOf: (profile: Profile) => Promise<ServerQueueRead>;
  /** What a job runs (its workflow's name), from the job journal; null when the app did not send it. */
  labelOf: (promptId: string) => Promise<string | null>;
  emit: <E extends EventName>(name: E, payload: EventPayload<E>) => void;
}

export function createPoolHandlers(deps: PoolHandlerDeps): Pick<CallHandlers, PoolCallName> {
  const view = (): ReturnType<typeof poolSettingsView> => {
    const s = deps.settings.read();
    return poolSettingsView(s.pool, s.profiles);
  };
  return {
    'pool.get': async () => view(),

    'pool.save': async ({ servers }) => {
      const known = { profiles: deps.settings.read().profiles, needsKey: deps.needsKey, hasKey: deps.hasKey };
      const problems = (await checkPoolEntries(servers, known)).flatMap((c) => (c.problem === null ? [] : [c.problem]));
      if (problems.length > 0) {
        throw new AppFailure('invalid_input', problems.join(' '), { issues: problems.map((message) => ({ path: 'servers', message })) });
      }
      deps.settings.update((s) => ({ ...s, pool: servers.map((e) => ({ profileId: e.profileId, concurrency: e.concurrency })) }));
      await deps.restartFolders();
      const saved = view();
      deps.emit('pool.changed', saved);
      return saved;
    },

    'pool.queues': async () => {
      const s = deps.settings.read();
      const profiles = s.pool.flatMap((e) => s.profiles.filter((p) => p.id === e.profileId));
      const servers = await Promise.all(
        profiles.map(async (profile): Promise<PoolQueueView> => {
          try {
            const queue = await deps.queueOf(profile);
            const labelled = (entries: QueueView['running']): Promise<PoolQueueView['running']> =>
              Promise.all(entries.map(async (e) => ({ ...e, label: await deps.labelOf(e.promptId).catch(() => null) })));
            return {
              profileId: profile.id,
              name: profile.name,
              running: await labelled(queue.running),
              pending: await labelled(queue.pending),
              error: null,
              note: queue.ownJobsOnly ? ownJobsNote(queue) : null,
            };
          } catch (error) {
            return {
              profileId: profile.id,
              name: profile.name,
              running: [],
              pending: [],
              error: error instanceof Error ? error.message : String(error),
              note: null,
            };
          }
        }),
      );
      return { servers };
    },

    'pool.status': async () => deps.pools.status(),
  };
}

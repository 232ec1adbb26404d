// The profiles and keys calls: profiles.list/save/remove/select and key.status/save/remove. A
// change that concerns the active server switches it afresh; one that concerns a pool server
// restarts the hot folders and the pool on the new settings.
import { randomUUID } from 'node:crypto';
import type { CallHandlers, EventName, EventPayload, KeyStatus } from '@shared/ipc/contract';
import { describeError } from '@shared/describe-error';
import { normaliseBaseUrl, type Profile, type SettingsStore } from '@main/config/settings';
import type { ActiveServer } from './active-server';
import { AppFailure } from './errors';
import type { HotFoldersHost } from './hot-folders-host';
import type { KeyVault } from './keys';
import { poolSettingsView } from './pool-settings';
import type { ProfileDirectory } from './profile-directory';

export type ProfileCallName = 'profiles.list' | 'profiles.save' | 'profiles.remove' | 'profiles.select' | 'key.status' | 'key.save' | 'key.remove';

export interface ProfileHandlerDeps {
  settings: SettingsStore;
  vault: KeyVault;
  profiles: ProfileDirectory;
  active: ActiveServer;
  hotFolders: () => HotFoldersHost | null;
  emit: <E extends EventName>(name: E, payload: EventPayload<E>) => void;
}

export function createProfileHandlers(deps: ProfileHandlerDeps): Pick<CallHandlers, ProfileCallName> {
  const { profiles, active } = deps;
  return {
    'profiles.list': async () => profiles.state(),

    'profiles.save': async (input) => {
      let baseUrl = '';
      if (input.kind !== 'demo') {
        if (!input.baseUrl) throw new AppFailure('invalid_input', 'A server URL is needed for this profile (for example http://127.0.0.1:8188).');
        try {
          baseUrl = normaliseBaseUrl(input.baseUrl);
        } catch (error) {
          throw new AppFailure('invalid_input', describeError(error));
        }
      }
      const current = deps.settings.read();
      const existing = input.id ? current.profiles.find((p) => p.id === input.id) : undefined;
      if (input.id && !existing) throw new AppFailure('not_found', `There is no server profile with id "${input.id}".`);
      const apiBaseUrl = proxyApiBaseUrl(input.kind, input.apiBaseUrl ?? existing?.apiBaseUrl);
      const profile: Profile = { id: existing?.id ?? randomUUID(), name: input.name, kind: input.kind, baseUrl, ...(apiBaseUrl ? { apiBaseUrl } : {}) };
      const wasActive = current.activeProfileId === profile.id;
      const select = input.select === true || !current.activeProfileId;
      deps.settings.update((s) => ({
        ...s,
        profiles: existing ? s.profiles.map((p) => (p.id === profile.id ? profile : p)) : [...s.profiles, profile],
        activeProfileId: select ? profile.id : s.activeProfileId,
      }));
      const serverChanged =
        existing !== undefined && (existing.kind !== profile.kind || existing.baseUrl !== profile.baseUrl || existing.apiBaseUrl !== profile.apiBaseUrl);
      if ((select && !wasActive) || (wasActive && serverChanged)) await active.switchTo(profile.id);
      else if (serverChanged && inPool(deps.settings, profile.id)) await active.restartFolders();
      deps.emit('profiles.changed', profiles.state());
      return profiles.view(profile);
    },

    'profiles.remove': async ({ id }) => {
      const profile = profiles.find(id);
      const wasActive = deps.settings.read().activeProfileId === id;
      // The active server's successor must be able to run workflows: a cloud server without a
      // key never becomes active silently; with none usable, no server is active.
      let successor: string | null = null;
      if (wasActive) {
        for (const p of deps.settings.read().profiles) {
          if (p.id !== id && (!profiles.needsKey(p) || (await profiles.keyFor(p)))) {
            successor = p.id;
            break;
          }
        }
      }
      const wasInPool = inPool(deps.settings, id);
      const next = deps.settings.update((s) => {
        const profiles = s.profiles.filter((p) => p.id !== id);
        // A removed server leaves the pool too.
        return { ...s, profiles, pool: s.pool.filter((e) => e.profileId !== id), activeProfileId: s.activeProfileId === id ? successor : s.activeProfileId };
      });
      if (profile.kind !== 'demo') await deps.vault.remove(id);
      active.problems.set(id, null);
      if (wasActive) {
        if (!next.activeProfileId)
          deps.hotFolders()?.setOfflineReason(`The server "${profile.name}" was removed: choose a server in Servers and the folder runs again.`);
        await active.switchTo(next.activeProfileId);
      } else if (wasInPool) await active.restartFolders();
      if (wasInPool) deps.emit('pool.changed', poolSettingsView(next.pool, next.profiles));
      deps.emit('profiles.changed', profiles.state());
      return profiles.state();
    },

    'profiles.select': async ({ id }) => {
      profiles.find(id);
      deps.settings.update((s) => ({ ...s, activeProfileId: id }));
      if (active.current()?.profileId !== id) await active.switchTo(id);
      deps.emit('profiles.changed', profiles.state());
      return profiles.state();
    },

    'key.status': async (input) => {
      const profile = profiles.target(input?.profileId);
      if (profile.kind === 'demo') return { isSet: true, last4: profiles.demoKey.slice(-4), storage: 'session' } satisfies KeyStatus;
      return deps.vault.status(profile.id);
    },

    'key.save': async ({ profileId, key, sessionOnly }) => {
      const profile = profiles.target(profileId);
      if (profile.kind === 'demo') throw new AppFailure('invalid_input', "The demo profile uses the built-in service's own key; it needs none from you.");
      const status = await deps.vault.save(profile.id, key, sessionOnly === true);
      // A new key: what the old one met (rejected, no credits) is not known of this one.
      active.problems.set(profile.id, null);
      // The events socket authenticates when it connects: reconnect with the new key.
      if (active.current()?.profileId === profile.id) await active.switchTo(profile.id);
      else if (inPool(deps.settings, profile.id)) await active.restartFolders();
      return status;
    },

    'key.remove': async (input) => {
      const profile = profiles.target(input?.profileId);
      if (profile.kind === 'demo') throw new AppFailure('invalid_input', "The demo profile's key belongs to the built-in service and cannot be removed.");
      const status = await deps.vault.remove(profile.id);
      active.problems.set(profile.id, profiles.needsKey(profile) ? 'no_key' : null);
      if (active.current()?.profileId === profile.id) await active.switchTo(profile.id);
      // A pool server without its key leaves the running pool (shown out of rotation with the reason).
      else if (inPool(deps.settings, profile.id)) await active.restartFolders();
      return status;
    },
  };
}

/** Whether the profile is one of the pool's servers. */
function inPool(settings: SettingsStore, profileId: string): boolean {
  return settings.read().pool.some((e) => e.profileId === profileId);
}

/** A proxy profile's server API address, normalised; none for other kinds or when left empty. */
function proxyApiBaseUrl(kind: Profile['kind'], given: string | undefined): string | null {
  if (kind !== 'proxy' || !given?.trim()) return null;
  try {
    return normaliseBaseUrl(given);
  } catch (error) {
    throw new AppFailure('invalid_input', `The server API URL: ${describeError(error)}`);
  }
}

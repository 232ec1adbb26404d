// The pool's settings as the app checks them: every server a known profile, no server twice (two
// profiles at one address are one server), and a key for every server that needs one. A save with
// problems is refused naming each of them; a running pool leaves such servers out with the reason
// and keeps the others going.
import type { PoolServerView } from '@shared/ipc/pool-contract';
import { normaliseBaseUrl, type PoolEntry, type Profile } from '@main/config/settings';

export interface PoolProfiles {
  profiles: readonly Profile[];
  needsKey(profile: Profile): boolean;
  hasKey(profile: Profile): Promise<boolean>;
}

/** A pool server that can be used, or why it cannot. */
export type PoolEntryCheck = { entry: PoolEntry; profile: Profile; problem: null } | { entry: PoolEntry; profile: Profile | null; problem: string };

/** The address that makes two profiles the same server (every demo profile is the one built-in service). */
function serverKey(profile: Profile): string {
  if (profile.kind === 'demo') return 'demo:';
  try {
    return normaliseBaseUrl(profile.baseUrl);
  } catch {
    return profile.baseUrl;
  }
}

/** Each entry with its problem, in the pool's order; the first of two entries for one server is kept. */
export async function checkPoolEntries(entries: readonly PoolEntry[], known: PoolProfiles): Promise<PoolEntryCheck[]> {
  const seen = new Map<string, Profile>();
  const checks: PoolEntryCheck[] = [];
  for (const entry of entries) {
    const profile = known.profiles.find((p) => p.id === entry.profileId) ?? null;
    if (!profile) {
      checks.push({ entry, profile, problem: `There is no server profile with id "${entry.profileId}".` });
      continue;
    }
    const key = serverKey(profile);
    const first = seen.get(key);
    if (first) {
      const where = profile.kind === 'demo' ? 'the built-in demo service' : key;
      checks.push({
        entry,
        profile,
        problem:
          first.id === profile.id
            ? `"${profile.name}" is in the pool twice. Each server may be in the pool once; give it a higher concurrency instead.`
            : `"${profile.name}" and "${first.name}" are the same server (${where}). Each server may be in the pool once; give it a higher concurrency instead.`,
      });
      continue;
    }
    seen.set(key, profile);
    if (known.needsKey(profile) && !(await known.hasKey(profile))) {
      checks.push({
        entry,
        profile,
        problem: `"${profile.name}" has no API key. Set its key in Servers (choose it as the active server), or take it out of the pool.`,
      });
      continue;
    }
    checks.push({ entry, profile, problem: null });
  }
  return checks;
}

/** The pool's servers as the Servers view shows them (entries whose profile is gone are left out). */
export function poolSettingsView(entries: readonly PoolEntry[], profiles: readonly Profile[]): { servers: PoolServerView[] } {
  const servers: PoolServerView[] = [];
  for (const entry of entries) {
    const profile = profiles.find((p) => p.id === entry.profileId);
    if (profile) servers.push({ profileId: profile.id, name: profile.name, kind: profile.kind, concurrency: entry.concurrency });
  }
  return { servers };
}

// The pool as the Servers view edits it: an ordered list of server profiles (order = preference)
// with each one's concurrency, changed locally and saved with pool.save. Pure data, so the rules
// (a profile once, moving within bounds, concurrency 1..64) are tested without a page.
import type { PoolServerView, ProfileView } from '@shared/ipc/contract';

export interface PoolDraftEntry {
  profileId: string;
  concurrency: number;
}

export const MAX_POOL_CONCURRENCY = 64;

/** Concurrency a server starts with when added: 1 (a cloud server's account limit wins where the server tells it). */
export const DEFAULT_POOL_CONCURRENCY = 1;

export function draftOfPool(servers: readonly PoolServerView[]): PoolDraftEntry[] {
  return servers.map((s) => ({ profileId: s.profileId, concurrency: s.concurrency }));
}

/** Profiles not in the pool yet, in the profiles' order. */
export function addableProfiles(draft: readonly PoolDraftEntry[], profiles: readonly ProfileView[]): ProfileView[] {
  return profiles.filter((p) => !draft.some((e) => e.profileId === p.id));
}

export function addToPool(draft: readonly PoolDraftEntry[], profileId: string): PoolDraftEntry[] {
  if (draft.some((e) => e.profileId === profileId)) return [...draft];
  return [...draft, { profileId, concurrency: DEFAULT_POOL_CONCURRENCY }];
}

export function removeFromPool(draft: readonly PoolDraftEntry[], profileId: string): PoolDraftEntry[] {
  return draft.filter((e) => e.profileId !== profileId);
}

/** Moves an entry one place up (-1) or down (+1); unchanged at either end. */
export function movePoolEntry(draft: readonly PoolDraftEntry[], index: number, by: -1 | 1): PoolDraftEntry[] {
  const to = index + by;
  if (index < 0 || index >= draft.length || to < 0 || to >= draft.length) return [...draft];
  const next = [...draft];
  const [moved] = next.splice(index, 1);
  next.splice(to, 0, moved!);
  return next;
}

/** Why a concurrency cannot be saved, or null. */
export function concurrencyProblem(value: number): string | null {
  return Number.isInteger(value) && value >= 1 && value <= MAX_POOL_CONCURRENCY
    ? null
    : `Jobs at once must be a whole number from 1 to ${MAX_POOL_CONCURRENCY}.`;
}

/** Whether the draft differs from what is saved. */
export function poolChanged(draft: readonly PoolDraftEntry[], saved: readonly PoolServerView[]): boolean {
  return draft.length !== saved.length || draft.some((e, i) => e.profileId !== saved[i]?.profileId || e.concurrency !== saved[i]?.concurrency);
}

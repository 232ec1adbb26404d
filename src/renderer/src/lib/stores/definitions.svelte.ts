// The active server's node definitions, loaded when the active profile changes (the form and the
// check for unknown node classes need them), and fetched again when they may be out of date: on
// "Refresh", when the window regains focus after a while, and when a chosen value is not among
// the server's (a model or file installed since).

/** Definitions older than this are fetched again when the window regains focus. */
export const STALE_AFTER_MS = 60_000;
import type { NodeClassView } from '@shared/ipc/contract';
import { messageOf, type Api } from '../api';

export class DefinitionsStore {
  classes = $state<Record<string, NodeClassView> | null>(null);
  profileId = $state<string | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);
  /** The server has no node definitions at all (Comfy API v2 only): forms follow each workflow. */
  none = $state(false);
  readonly #api: Api;
  #generation = 0;
  /** When the current definitions arrived (ms since epoch); 0 before any. */
  #loadedAt = 0;
  /** Values "not on the server" already answered by a refresh (per profile), so none asks twice. */
  #askedFor = new Set<string>();

  constructor(api: Api) {
    this.#api = api;
  }

  /** Loads (or reloads) the definitions of a profile; a newer request wins over an older one. */
  async load(profileId: string | null, refresh = false): Promise<void> {
    const generation = ++this.#generation;
    if (profileId === null) {
      this.classes = null;
      this.profileId = null;
      this.error = null;
      this.none = false;
      return;
    }
    this.loading = true;
    this.error = null;
    try {
      const result = await this.#api.call('nodes.definitions', { profileId, refresh });
      if (generation !== this.#generation) return;
      // None at all is not "every class unknown": the form follows the workflow's own values.
      this.classes = result.none === true ? null : result.classes;
      this.none = result.none === true;
      if (result.profileId !== this.profileId) this.#askedFor.clear();
      this.profileId = result.profileId;
      this.#loadedAt = Date.now();
    } catch (error) {
      if (generation !== this.#generation) return;
      this.classes = null;
      this.none = false;
      this.profileId = profileId;
      this.error = messageOf(error);
    } finally {
      if (generation === this.#generation) this.loading = false;
    }
  }

  /** Fetches the active profile's definitions from the server again ("Refresh"). */
  refresh(): Promise<void> {
    return this.profileId === null || this.loading ? Promise.resolve() : this.load(this.profileId, true);
  }

  /** Refreshes when the definitions are older than `maxAgeMs` (the window regained focus). */
  refreshIfOlderThan(maxAgeMs: number, now = Date.now()): Promise<void> {
    return this.#loadedAt !== 0 && now - this.#loadedAt > maxAgeMs ? this.refresh() : Promise.resolve();
  }

  /** A chosen value the server does not list: maybe installed since, so ask once per value. */
  refreshForMissingValue(value: string): Promise<void> {
    if (this.#askedFor.has(value)) return Promise.resolve();
    this.#askedFor.add(value);
    return this.refresh();
  }
}

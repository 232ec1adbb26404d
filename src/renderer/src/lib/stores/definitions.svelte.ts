// The active server's node definitions, loaded when the active profile changes (the form and the
// check for unknown node classes need them).
import type { NodeClassView } from '../../../../shared/ipc/contract';
import { messageOf, type Api } from '../api';

export class DefinitionsStore {
  classes = $state<Record<string, NodeClassView> | null>(null);
  profileId = $state<string | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);
  readonly #api: Api;
  #generation = 0;

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
      return;
    }
    this.loading = true;
    this.error = null;
    try {
      const result = await this.#api.call('nodes.definitions', { profileId, refresh });
      if (generation !== this.#generation) return;
      this.classes = result.classes;
      this.profileId = result.profileId;
    } catch (error) {
      if (generation !== this.#generation) return;
      this.classes = null;
      this.profileId = profileId;
      this.error = messageOf(error);
    } finally {
      if (generation === this.#generation) this.loading = false;
    }
  }
}

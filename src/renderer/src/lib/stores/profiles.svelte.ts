// Server profiles and which one is active, kept fresh by `profiles.changed` events.
import type { CallInput, ProfileView, ProfilesState } from '@shared/ipc/contract';
import type { Api } from '../api';

export class ProfilesStore {
  profiles = $state<ProfileView[]>([]);
  activeProfileId = $state<string | null>(null);
  loaded = $state(false);
  active = $derived(this.profiles.find((p) => p.id === this.activeProfileId) ?? null);
  readonly #api: Api;

  constructor(api: Api) {
    this.#api = api;
  }

  attach(): () => void {
    return this.#api.on('profiles.changed', (state) => this.#apply(state));
  }

  async load(): Promise<void> {
    this.#apply(await this.#api.call('profiles.list'));
  }

  async save(input: CallInput<'profiles.save'>): Promise<ProfileView> {
    const saved = await this.#api.call('profiles.save', input);
    await this.load();
    return saved;
  }

  async remove(id: string): Promise<void> {
    this.#apply(await this.#api.call('profiles.remove', { id }));
  }

  async select(id: string): Promise<void> {
    this.#apply(await this.#api.call('profiles.select', { id }));
  }

  #apply(state: ProfilesState): void {
    this.profiles = state.profiles;
    this.activeProfileId = state.activeProfileId;
    this.loaded = true;
  }
}

// The server profiles and what each needs to be reached: its views for the renderer, lookup by id,
// its server address (the built-in demo service started on first need), its key (the keychain's,
// or the demo's own, random per run and held in main's memory only), and whether it needs one.
import { randomBytes, randomUUID } from 'node:crypto';
import type { ProfileView, ProfilesState } from '@shared/ipc/contract';
import { sameBaseUrl, type Profile, type SettingsStore } from '@main/config/settings';
import { capabilitiesFor } from '@main/service/capabilities';
import { serverKindOfProfile } from '@main/service/profile-server';
import type { ServerProfile } from '@main/service/types';
import { AppFailure } from './errors';
import type { KeyVault } from './keys';
import type { DemoHandle, LogLevel, StartDemo } from './ports';

export interface ProfileDirectoryDeps {
  settings: SettingsStore;
  vault: KeyVault;
  startDemo: StartDemo;
  log: (level: LogLevel, message: string) => void;
}

export interface ProfileAccess {
  needsKey(profile: Profile): boolean;
  hasKey(profile: Profile): Promise<boolean>;
  serverFor(profile: Profile): Promise<ServerProfile>;
  keyFor(profile: Profile): Promise<string | null>;
}

export class ProfileDirectory {
  /** The demo service's key: random per run, held in main's memory only. */
  readonly demoKey = `demo-${randomBytes(18).toString('base64url')}`;
  private readonly deps: ProfileDirectoryDeps;
  private demo: DemoHandle | null = null;
  private demoStarting: Promise<DemoHandle> | null = null;

  constructor(deps: ProfileDirectoryDeps) {
    this.deps = deps;
    deps.vault.noteSecret(this.demoKey);
  }

  view(p: Profile): ProfileView {
    return {
      id: p.id,
      name: p.name,
      kind: p.kind,
      baseUrl: p.kind === 'demo' ? (this.demo?.url ?? '') : p.baseUrl,
      ...(p.apiBaseUrl ? { apiBaseUrl: p.apiBaseUrl } : {}),
    };
  }

  state(): ProfilesState {
    const s = this.deps.settings.read();
    return { profiles: s.profiles.map((p) => this.view(p)), activeProfileId: s.activeProfileId };
  }

  find(id: string): Profile {
    const profile = this.deps.settings.read().profiles.find((p) => p.id === id);
    if (!profile) throw new AppFailure('not_found', `There is no server profile with id "${id}".`);
    return profile;
  }

  /** The profile a call targets: the one named, else the active one. */
  target(profileId: string | undefined): Profile {
    if (profileId !== undefined) return this.find(profileId);
    const active = this.deps.settings.read().activeProfileId;
    if (!active) throw new AppFailure('invalid_input', 'No server profile is selected. Add or select one first.');
    return this.find(active);
  }

  /** Whether the profile's server needs an API key (asked of its capabilities, not its kind). */
  needsKey(profile: Profile): boolean {
    return capabilitiesFor(serverKindOfProfile(profile)).needsApiKey;
  }

  async keyFor(profile: Profile): Promise<string | null> {
    return profile.kind === 'demo' ? this.demoKey : this.deps.vault.get(profile.id);
  }

  async hasKey(profile: Profile): Promise<boolean> {
    return (await this.keyFor(profile)) !== null;
  }

  async serverFor(profile: Profile): Promise<ServerProfile> {
    if (profile.kind === 'demo') return { kind: serverKindOfProfile(profile), baseUrl: (await this.ensureDemo()).url };
    return { kind: serverKindOfProfile(profile), baseUrl: profile.baseUrl };
  }

  /** The profile name of the server at `baseUrl` (a hot folder file's server). */
  serverName(baseUrl: string): string | null {
    const demo = this.demo;
    const profile = this.deps.settings
      .read()
      .profiles.find((p) => (p.kind === 'demo' ? demo !== null && sameBaseUrl(demo.url, baseUrl) : sameBaseUrl(p.baseUrl, baseUrl)));
    return profile?.name ?? null;
  }

  /**
   * The profile to activate at start: the saved active one, else the first; on the very first
   * start a demo profile, so the app does something real before any account exists.
   */
  ensureActive(demoName: string): string | null {
    const settings = this.deps.settings;
    const current = settings.read();
    if (current.profiles.length === 0) {
      const profile: Profile = { id: randomUUID(), name: demoName, kind: 'demo', baseUrl: '' };
      return settings.update((s) => ({ ...s, profiles: [profile], activeProfileId: profile.id })).activeProfileId;
    }
    if (!current.profiles.some((p) => p.id === current.activeProfileId))
      return settings.update((s) => ({ ...s, activeProfileId: s.profiles[0]?.id ?? null })).activeProfileId;
    return current.activeProfileId;
  }

  /** What the pool needs to reach a profile's server, bound to this directory. */
  access(): ProfileAccess {
    return {
      needsKey: (profile) => this.needsKey(profile),
      hasKey: (profile) => this.hasKey(profile),
      serverFor: (profile) => this.serverFor(profile),
      keyFor: (profile) => this.keyFor(profile),
    };
  }

  /** Stops the demo service if it runs or is starting. */
  async stopDemo(): Promise<void> {
    const running = this.demo ?? (this.demoStarting ? await this.demoStarting.catch(() => null) : null);
    await running?.stop();
    this.demo = null;
  }

  private ensureDemo(): Promise<DemoHandle> {
    if (this.demo) return Promise.resolve(this.demo);
    this.demoStarting ??= this.deps.startDemo({ apiKey: this.demoKey }).then(
      (handle) => {
        this.demo = handle;
        this.deps.log('info', `built-in demo service listening on ${handle.url}`);
        return handle;
      },
      (error: unknown) => {
        this.demoStarting = null;
        throw error;
      },
    );
    return this.demoStarting;
  }
}

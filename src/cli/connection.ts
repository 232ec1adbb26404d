// Which server the CLI talks to and with which key: --server/--local, else the active profile
// of the shared settings, else the cloud service. The key comes from FLOWDECK_API_KEY first,
// then from the OS keychain entry of the matching profile.
import { randomUUID } from 'node:crypto';
import { resolveDataDir } from '@main/config/data-dir';
import { JsonSettingsStore } from '@main/config/json-settings';
import { KeytarSecretStore, SecretStoreUnavailableError, type SecretStore } from '@main/config/secrets';
import { profileConnection, type ProfileConnection } from '@main/service/profile-server';
import { DEFAULT_CLOUD_URL, DEFAULT_LOCAL_URL, normaliseBaseUrl, settingsSetAsideNotice, type Profile, type SettingsStore } from '@main/config/settings';
import { ServiceClient } from '@main/service/client';
import type { NodeDefinitions } from '@main/service/object-info';
import type { ServerProfile } from '@main/service/types';
import { capabilitiesFor } from '@main/service/capabilities';
import { libraryDirFromSettings } from '@main/library/library-dir';
import { MissingKeyError, UsageError } from './errors';

export interface ConnectionFlags {
  server?: string | undefined;
  local?: boolean | undefined;
}

export interface CliEnvironment {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  settings: SettingsStore;
  secrets: SecretStore;
}

export function defaultEnvironment(env: NodeJS.ProcessEnv = process.env): CliEnvironment {
  const dataDir = resolveDataDir(env);
  const settings = new JsonSettingsStore(dataDir);
  // A command has no notification centre: the user hears of a settings file set aside on stderr.
  settings.onSetAside((event) => process.stderr.write(`flowdeck: ${settingsSetAsideNotice(event)}\n`));
  return { env, dataDir, settings, secrets: new KeytarSecretStore() };
}

/**
 * The library folder a command keeps outputs in: FLOWDECK_LIBRARY_DIR, else the folder chosen in
 * the app (settings.libraryDir), else the data folder's: the same folder the app opens next.
 */
export function libraryDirOf(environment: CliEnvironment): string {
  return libraryDirFromSettings(environment.dataDir, environment.settings, environment.env);
}

export interface ResolvedServer {
  server: ServerProfile;
  /** How to connect (a serverless or proxy profile says v2, and a proxy names its server's own API). */
  connection?: Omit<ProfileConnection, 'server'>;
  /** The settings profile this server matches, when there is one (its id names the keychain entry). */
  profile: Profile | null;
}

export function resolveServer(flags: ConnectionFlags, environment: CliEnvironment): ResolvedServer {
  const { profiles, activeProfileId } = environment.settings.read();
  if (flags.server !== undefined) {
    let baseUrl: string;
    try {
      baseUrl = normaliseBaseUrl(flags.server);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    const profile = profiles.find((p) => p.kind !== 'demo' && p.baseUrl === baseUrl) ?? null;
    if (profile && !flags.local) {
      const { server, ...connection } = profileConnection(profile);
      return { server, connection, profile };
    }
    const kind = flags.local ? 'local' : 'cloud';
    return { server: { kind, baseUrl }, profile };
  }
  if (flags.local) {
    const profile = profiles.find((p) => p.kind === 'local' && p.baseUrl === DEFAULT_LOCAL_URL) ?? null;
    return { server: { kind: 'local', baseUrl: DEFAULT_LOCAL_URL }, profile };
  }
  const active = profiles.find((p) => p.id === activeProfileId);
  if (active && active.kind !== 'demo') {
    const { server, ...connection } = profileConnection(active);
    return { server, connection, profile: active };
  }
  if (active?.kind === 'demo') {
    throw new UsageError(
      "The active profile is the app's built-in demo service, which runs only inside the app. " +
        'Start one with "flowdeck demo" and pass the URL it prints with --server.',
    );
  }
  const profile = profiles.find((p) => p.kind === 'cloud' && p.baseUrl === DEFAULT_CLOUD_URL) ?? null;
  return { server: { kind: 'cloud', baseUrl: DEFAULT_CLOUD_URL }, profile };
}

/** Finds the settings profile for a server, creating one (for the keychain entry) when missing. */
export function ensureProfile(resolved: ResolvedServer, environment: CliEnvironment): Profile {
  if (resolved.profile) return resolved.profile;
  const { server } = resolved;
  const profile: Profile = { id: randomUUID(), name: new URL(server.baseUrl).host, kind: server.kind, baseUrl: server.baseUrl };
  environment.settings.update((s) => ({ ...s, profiles: [...s.profiles, profile] }));
  return profile;
}

export interface KeyLookup {
  key: string | null;
  /** Why there is no key, when there is none and it matters. */
  problem: string | null;
}

export async function lookupKey(resolved: ResolvedServer, environment: CliEnvironment): Promise<KeyLookup> {
  const fromEnv = environment.env.FLOWDECK_API_KEY;
  if (fromEnv && fromEnv.trim() !== '') return { key: fromEnv.trim(), problem: null };
  if (!resolved.profile) return { key: null, problem: null };
  try {
    return { key: await environment.secrets.get(resolved.profile.id), problem: null };
  } catch (error) {
    if (error instanceof SecretStoreUnavailableError) return { key: null, problem: error.message };
    throw error;
  }
}

/** The key a cloud server needs; a clear error (exit 3) when there is none. Local servers need none. */
export async function requireKey(resolved: ResolvedServer, environment: CliEnvironment): Promise<string | null> {
  const { key, problem } = await lookupKey(resolved, environment);
  if (key || !capabilitiesFor(resolved.server.kind).needsApiKey) return key;
  throw missingKeyError(resolved, problem);
}

/** The error (exit 3) for a server that needs a key when none is set. */
export function missingKeyError(resolved: ResolvedServer, problem: string | null): MissingKeyError {
  const base = `No API key for ${resolved.server.baseUrl}. Set FLOWDECK_API_KEY, or store one in the OS keychain with "flowdeck login --server ${resolved.server.baseUrl}".`;
  return new MissingKeyError(problem ? `${base}\n${problem}` : base);
}

/** The server's node definitions (GET /api/object_info), asked with the key it needs (exit 3 without one for the cloud). */
export async function fetchNodeDefinitions(resolved: ResolvedServer, environment: CliEnvironment): Promise<NodeDefinitions> {
  const key = await requireKey(resolved, environment);
  return new ServiceClient(resolved.server, { apiKey: () => key }).getNodeDefinitions();
}

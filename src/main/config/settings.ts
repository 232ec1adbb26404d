// Settings: server profiles, the active profile, recent workflows, window state and defaults.
// The file on disk is a trust boundary: it is validated on every read, and a damaged file is set
// aside (never silently lost) and replaced by defaults. The API key is never part of settings.
import { z } from 'zod';

/**
 * cloud, local and demo, and two Comfy API v2 surfaces: 'serverless' (a deployment at
 * https://{deployment}.run.comfy.app: v2 only, account keys) and 'proxy' (the self-hosted
 * comfy-api-proxy: v2 at `baseUrl`, the server's own API at `apiBaseUrl`; a key only if it
 * answers 401). See profile-server.ts for what each means to the service layer.
 */
export const profileKindSchema = z.enum(['cloud', 'local', 'demo', 'serverless', 'proxy']);

export const profileSchema = z.object({
  id: z.string().min(1).max(64),
  name: z.string().min(1).max(120),
  kind: profileKindSchema,
  /** Ignored for demo profiles (the built-in service picks its own port). */
  baseUrl: z.string().max(2048),
  /** Proxy profiles: the server's own API behind the proxy (node definitions, queue, history). */
  apiBaseUrl: z.string().max(2048).optional(),
});
export type Profile = z.infer<typeof profileSchema>;

/**
 * One server of the pool: a profile and how many jobs the pool sends it at once. For a cloud
 * profile the account's own limit wins where the server's discovery tells it; this is the
 * fallback (and the figure for local and demo servers, default 1).
 */
export const poolEntrySchema = z.object({
  profileId: z.string().min(1).max(64),
  concurrency: z.number().int().min(1).max(64).default(1),
});
export type PoolEntry = z.infer<typeof poolEntrySchema>;
/** More servers than anyone runs at once; bounds what one settings file can make the app connect to. */
export const MAX_POOL_SERVERS = 16;

export const windowStateSchema = z.object({
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(200).max(20000),
  height: z.number().int().min(200).max(20000),
  maximized: z.boolean(),
});

export const settingsSchema = z.object({
  profiles: z.array(profileSchema).default([]),
  activeProfileId: z.string().nullable().default(null),
  /** The pool: servers in the user's order of preference (hot folders set to "Run on: Pool" use it). */
  pool: z.array(poolEntrySchema).max(MAX_POOL_SERVERS).default([]),
  recentWorkflows: z.array(z.string()).max(50).default([]),
  window: windowStateSchema.nullable().default(null),
  /** The library folder the user chose; null: <data folder>/library (see resolveLibraryDir). */
  libraryDir: z.string().min(1).max(4096).nullable().default(null),
  defaults: z
    .object({
      repeat: z.number().int().min(1).max(100).default(1),
      pollIntervalMs: z.number().int().min(250).max(60000).default(2000),
    })
    .default({ repeat: 1, pollIntervalMs: 2000 }),
});
export type SettingsData = z.infer<typeof settingsSchema>;

export function defaultSettings(): SettingsData {
  return settingsSchema.parse({});
}

/**
 * A settings file that could not be used, copied aside before the defaults replaced it: not JSON
 * at all ('damaged'), or JSON that is not Flowdeck's settings ('invalid').
 */
export interface SettingsSetAside {
  copy: string;
  reason: 'damaged' | 'invalid';
}

/** What the app core, the CLI and the harness need from settings (json-settings.ts; tests' fakes). */
export interface SettingsStore {
  read(): SettingsData;
  write(next: SettingsData): void;
  update(mutate: (current: SettingsData) => SettingsData): SettingsData;
  /** Each file set aside so far, then each later one; returns the unsubscribe. */
  onSetAside?(listener: (event: SettingsSetAside) => void): () => void;
}

/** What the user is told when their settings file was set aside. */
export function settingsSetAsideNotice(event: SettingsSetAside): string {
  const what = event.reason === 'damaged' ? 'was damaged (not readable as JSON)' : 'did not hold valid Flowdeck settings';
  return `The settings file ${what}; it was kept as ${event.copy} and the default settings were started. Servers and recent workflows may need to be added again; the API key in the keychain was not touched.`;
}

export const DEFAULT_CLOUD_URL = 'https://cloud.comfy.org';
export const DEFAULT_LOCAL_URL = 'http://127.0.0.1:8188';

/** Normalises a user-entered base URL: http(s) only, no trailing slash, no credentials or query. */
export function normaliseBaseUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new Error(`"${input}" is not a valid server URL. Use a full address such as ${DEFAULT_LOCAL_URL} or ${DEFAULT_CLOUD_URL}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`The server URL must start with http:// or https:// (got ${url.protocol}).`);
  }
  if (url.username || url.password) throw new Error('The server URL must not contain a user name or password; use the API key field.');
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * Whether two base URLs name the same server, compared as normaliseBaseUrl writes them (case of
 * the host and trailing slashes aside). An address that does not parse is compared as written: a
 * journal or settings file from an older version must still match itself, never throw.
 */
export function sameBaseUrl(a: string, b: string): boolean {
  return comparableBaseUrl(a) === comparableBaseUrl(b);
}

function comparableBaseUrl(url: string): string {
  try {
    return normaliseBaseUrl(url);
  } catch {
    return url.trim().replace(/\/+$/, '');
  }
}

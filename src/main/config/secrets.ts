// API keys live in the OS keychain (keytar), one entry per server profile. Where no keychain is
// available the store says so plainly and how to fix it; it never falls back to a plaintext file.
// A session-only store is offered instead, kept in memory of the main process.

export const KEYCHAIN_SERVICE = 'Flowdeck';

export interface SecretStore {
  readonly kind: 'keychain' | 'session';
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  /** Returns true when something was removed. */
  delete(account: string): Promise<boolean>;
}

export class SecretStoreUnavailableError extends Error {
  readonly code = 'keychain_unavailable';
  constructor(detail: string) {
    super(
      `No OS keychain is available, so the API key cannot be stored safely (${detail}). ` +
        'On Linux, run a Secret Service such as GNOME Keyring or KWallet in your desktop session ' +
        '(for example: sudo apt install gnome-keyring, then log in again). ' +
        'Until then, keep the key for this session only, or set the FLOWDECK_API_KEY environment variable.',
    );
    this.name = 'SecretStoreUnavailableError';
  }
}

interface KeytarModule {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

function isKeytarModule(value: unknown): value is KeytarModule {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.getPassword === 'function' && typeof v.setPassword === 'function' && typeof v.deletePassword === 'function';
}

/** Turns keytar's low-level failures into one clear, actionable error. Never includes the secret. */
function describeKeychainFailure(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  if (/autolaunch D-Bus|DBUS_SESSION_BUS_ADDRESS|X11/i.test(text)) return 'there is no D-Bus session to reach a Secret Service';
  if (/org\.freedesktop\.secrets|was not provided by any \.service/i.test(text)) return 'no Secret Service is running on D-Bus';
  if (/locked|dismissed|prompt/i.test(text)) return 'the keychain is locked or the unlock prompt was dismissed';
  return text.slice(0, 200);
}

export class KeytarSecretStore implements SecretStore {
  readonly kind = 'keychain' as const;
  private modulePromise: Promise<KeytarModule> | null = null;

  constructor(private readonly service: string = KEYCHAIN_SERVICE) {}

  private load(): Promise<KeytarModule> {
    this.modulePromise ??= import('keytar').then(
      (mod: unknown) => {
        const candidate = (mod as { default?: unknown }).default ?? mod;
        if (!isKeytarModule(candidate)) throw new SecretStoreUnavailableError('the keytar module has an unexpected shape');
        return candidate;
      },
      () => {
        throw new SecretStoreUnavailableError('the keytar module is not installed or could not be loaded');
      },
    );
    return this.modulePromise;
  }

  private async call<T>(fn: (k: KeytarModule) => Promise<T>): Promise<T> {
    const keytar = await this.load();
    try {
      return await fn(keytar);
    } catch (error) {
      if (error instanceof SecretStoreUnavailableError) throw error;
      throw new SecretStoreUnavailableError(describeKeychainFailure(error));
    }
  }

  get(account: string): Promise<string | null> {
    return this.call((k) => k.getPassword(this.service, account));
  }

  set(account: string, secret: string): Promise<void> {
    return this.call((k) => k.setPassword(this.service, account, secret));
  }

  delete(account: string): Promise<boolean> {
    return this.call((k) => k.deletePassword(this.service, account));
  }
}

/** Keeps keys in memory for this session only (offered when no keychain exists). */
export class SessionSecretStore implements SecretStore {
  readonly kind = 'session' as const;
  private readonly secrets = new Map<string, string>();

  async get(account: string): Promise<string | null> {
    return this.secrets.get(account) ?? null;
  }

  async set(account: string, secret: string): Promise<void> {
    this.secrets.set(account, secret);
  }

  async delete(account: string): Promise<boolean> {
    return this.secrets.delete(account);
  }
}

/** Shows only the end of a key, as the UI does: "a key is set, ending in …". */
export function keyHint(key: string): string {
  return key.length <= 8 ? '…' : `…${key.slice(-4)}`;
}

// API keys, one per profile. The key lives in main only: in the secret store (OS keychain), or in
// this process's memory when the user chose "this session only" or when no keychain exists.
// Callers get the key itself only through `get` (for the service client); everything that goes
// back to the renderer is a KeyStatus, which never contains it.
import type { KeyStatus } from '@shared/ipc/contract';
import { SecretStoreUnavailableError, type SecretStore } from '@main/config/secrets';
import { AppFailure } from './errors';

interface HeldKey {
  key: string;
  storage: 'keychain' | 'session';
}

export class KeyVault {
  /** Keys read or saved in this session (so the keychain is asked once), and session-only keys. */
  private readonly held = new Map<string, HeldKey>();
  /** Profiles whose keychain entry was looked up and found empty. */
  private readonly absent = new Set<string>();
  /** Every key this process has held, even removed ones: error text is scrubbed of all of them. */
  private readonly everSeen = new Set<string>();

  constructor(private readonly secrets: SecretStore) {}

  /** The key for a profile, or null. A keychain that cannot be reached counts as "no key". */
  async get(profileId: string): Promise<string | null> {
    const held = this.held.get(profileId);
    if (held) return held.key;
    if (this.absent.has(profileId)) return null;
    try {
      const key = await this.secrets.get(profileId);
      if (key) {
        this.remember(profileId, { key, storage: this.secrets.kind });
        return key;
      }
      this.absent.add(profileId);
      return null;
    } catch (error) {
      if (error instanceof SecretStoreUnavailableError) return null;
      throw error;
    }
  }

  async status(profileId: string): Promise<KeyStatus> {
    const key = await this.get(profileId);
    return this.describe(profileId, key);
  }

  /**
   * Stores the key in the keychain, or in memory when `sessionOnly`. Without a keychain this fails
   * with `keychain_unavailable` (its message says how to fix it) and stores nothing, so the
   * renderer can offer "keep it for this session only".
   */
  async save(profileId: string, key: string, sessionOnly: boolean): Promise<KeyStatus> {
    const trimmed = key.trim();
    if (trimmed === '') throw new AppFailure('invalid_input', 'The API key is empty.');
    this.everSeen.add(trimmed);
    if (sessionOnly || this.secrets.kind === 'session') {
      if (this.secrets.kind === 'session') await this.secrets.set(profileId, trimmed);
      this.remember(profileId, { key: trimmed, storage: 'session' });
    } else {
      await this.secrets.set(profileId, trimmed); // SecretStoreUnavailableError -> keychain_unavailable
      this.remember(profileId, { key: trimmed, storage: 'keychain' });
    }
    return this.describe(profileId, trimmed);
  }

  /** Forgets the key everywhere (memory and keychain). A missing keychain is not an error here. */
  async remove(profileId: string): Promise<KeyStatus> {
    this.held.delete(profileId);
    this.absent.add(profileId);
    try {
      await this.secrets.delete(profileId);
    } catch (error) {
      if (!(error instanceof SecretStoreUnavailableError)) throw error;
    }
    return { isSet: false, last4: null, storage: null };
  }

  /** A secret that is not a profile's key (the built-in demo service's) but must be redacted too. */
  noteSecret(secret: string): void {
    this.everSeen.add(secret);
  }

  /** Removes every key this process has seen from a text (error messages, log lines). */
  redact(text: string): string {
    let out = text;
    for (const key of this.everSeen) if (key.length >= 4) out = out.split(key).join('[redacted]');
    return out;
  }

  private remember(profileId: string, held: HeldKey): void {
    this.held.set(profileId, held);
    this.absent.delete(profileId);
    this.everSeen.add(held.key);
  }

  private describe(profileId: string, key: string | null): KeyStatus {
    if (!key) return { isSet: false, last4: null, storage: null };
    // The last four characters only when the key is long enough that they reveal little.
    return { isSet: true, last4: key.length >= 16 ? key.slice(-4) : null, storage: this.held.get(profileId)?.storage ?? 'keychain' };
  }
}

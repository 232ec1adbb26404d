// The keychain store against a real Secret Service (gnome-keyring under a private D-Bus session).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeytarSecretStore } from '@main/config/secrets';

describe('KeytarSecretStore with a real keyring', () => {
  it('has a D-Bus session (run through scripts/with-keyring.sh)', () => {
    expect(process.env.DBUS_SESSION_BUS_ADDRESS, 'DBUS_SESSION_BUS_ADDRESS').toBeTruthy();
  });

  it('stores, reads, replaces and removes a key per profile', async () => {
    const store = new KeytarSecretStore(`Flowdeck-test-${randomUUID()}`);
    const profileA = randomUUID();
    const profileB = randomUUID();
    expect(await store.get(profileA)).toBeNull();
    await store.set(profileA, 'key-a-1234567890');
    await store.set(profileB, 'key-b-0987654321');
    expect(await store.get(profileA)).toBe('key-a-1234567890');
    expect(await store.get(profileB)).toBe('key-b-0987654321');
    await store.set(profileA, 'key-a-replaced');
    expect(await store.get(profileA)).toBe('key-a-replaced');
    expect(await store.delete(profileA)).toBe(true);
    expect(await store.get(profileA)).toBeNull();
    expect(await store.delete(profileA)).toBe(false);
    expect(await store.get(profileB)).toBe('key-b-0987654321');
    await store.delete(profileB);
  });
});

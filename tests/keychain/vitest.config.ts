import { defineConfig } from 'vitest/config';

// Run only under scripts/with-keyring.sh: a private D-Bus session with a throw-away keyring.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/keychain/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'forks',
  },
});

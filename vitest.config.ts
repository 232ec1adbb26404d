import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // The keychain tests need a private D-Bus session; scripts/with-keyring.sh runs them (see scripts/test-all.mjs).
    exclude: ['tests/keychain/**', 'node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    globalSetup: ['tests/support/build.ts'],
  },
});

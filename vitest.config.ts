import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

const root = import.meta.dirname;

export default defineConfig({
  // The import aliases of tsconfig.json.
  resolve: { alias: { '@shared': resolve(root, 'src/shared'), '@main': resolve(root, 'src/main') } },
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

import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

const root = resolve(import.meta.dirname, '../..');

// Run only under scripts/with-keyring.sh: a private D-Bus session with a throw-away keyring.
export default defineConfig({
  // The import aliases of tsconfig.json.
  resolve: { alias: { '@shared': resolve(root, 'src/shared'), '@main': resolve(root, 'src/main') } },
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/keychain/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'forks',
  },
});

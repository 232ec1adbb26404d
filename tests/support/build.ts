// vitest global setup: the CLI tests run the BUILT command (node out/main/cli.js), as users do.
// scripts/test-all.mjs builds first and sets FLOWDECK_BUILT=1; a direct `npx vitest` builds here.
// A failed build is reported but does not stop unrelated tests; the CLI tests then fail on their own.
import { spawnSync } from 'node:child_process';

export default function setup(): void {
  if (process.env.FLOWDECK_BUILT === '1') return;
  const result = spawnSync('npx', ['electron-vite', 'build'], { stdio: 'pipe', encoding: 'utf8' });
  if (result.status !== 0) console.error(`build failed before tests; CLI tests will fail:\n${result.stdout}\n${result.stderr}`);
}

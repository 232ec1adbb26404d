// The app core and the browser harness's server in their own process, as the Electron main process
// would be, so bench/app-cost.ts can read this process's CPU from /proc apart from the page's and
// the server's. Its demo profile's server is the pacer demo (pacer-demo-child.ts) in a process of
// its own. Prints one JSON line {url, demoPid} on stdout; then answers each line "stats" on stdin
// with one JSON line (memory, the event loop's live handles by kind, the core's event counts).
//   node --expose-gc --import tsx core-child.ts DATA_DIR [DEMO_TIME_SCALE]
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';
import { createConnectFactory } from '@main/app/connect';
import { createAppCore } from '@main/app/core';
import { JsonSettingsStore } from '@main/config/json-settings';
import { SessionSecretStore } from '@main/config/secrets';
import { startHarnessServer } from '../../e2e/harness/server';

const TSX_LOADER = pathToFileURL(resolve(import.meta.dirname, '../../node_modules/tsx/dist/loader.mjs')).href;
const RENDERER = resolve(import.meta.dirname, '../../out/renderer');

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: core-child.ts DATA_DIR [DEMO_TIME_SCALE]');
const demoTimeScale = process.argv[3] ?? '1';
const demo: { child: ChildProcess | null } = { child: null };

const core = createAppCore({
  settings: new JsonSettingsStore(dataDir),
  secrets: new SessionSecretStore(),
  dataDir,
  startDemo: ({ apiKey }) =>
    new Promise((resolveDemo, reject) => {
      const child = spawn(process.execPath, ['--import', TSX_LOADER, join(import.meta.dirname, 'pacer-demo-child.ts'), apiKey, demoTimeScale], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      demo.child = child;
      const lines = createInterface({ input: child.stdout! });
      lines.once('line', (line) => {
        const { url } = JSON.parse(line) as { url: string };
        resolveDemo({
          url,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      });
      child.once('exit', (code) => reject(new Error(`the pacer demo exited (${code}) before answering`)));
    }),
  connect: createConnectFactory(),
  allowAnyPath: true,
  log: (level, message) => process.stderr.write(`[core ${level}] ${message}\n`),
});

const eventCounts: Record<string, { count: number }> = {};
core.onEvent((event) => {
  (eventCounts[event.name] ??= { count: 0 }).count += 1;
});

await core.start();
const harness = await startHarnessServer({ core, rendererDir: RENDERER, port: 0 });
process.stdout.write(`${JSON.stringify({ url: harness.url, demoPid: demo.child?.pid ?? 0 })}\n`);
// The demo never outlives this process, however it ends.
process.on('exit', () => demo.child?.kill('SIGKILL'));

function handleKinds(): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) kinds[kind] = (kinds[kind] ?? 0) + 1;
  return kinds;
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === 'stats') {
    (globalThis as { gc?: () => void }).gc?.();
    const memory = process.memoryUsage();
    process.stdout.write(`${JSON.stringify({ rss: memory.rss, heapUsed: memory.heapUsed, handles: handleKinds(), events: eventCounts })}\n`);
  }
});

const stop = async (): Promise<void> => {
  await harness.close();
  // The demo goes first, at once: the core's dispose would otherwise wait on it.
  demo.child?.kill('SIGKILL');
  await Promise.race([core.dispose(), new Promise((resolveLater) => setTimeout(resolveLater, 5000))]);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.stdin.on('end', () => void stop());

// The browser harness host (`npm run harness`, built to out/main/harness.js): the same app core
// as the Electron app, in plain Node, serving the built renderer and carrying the contract over a
// token-guarded WebSocket on 127.0.0.1. Prints exactly one line on stdout, the address to open:
//   http://127.0.0.1:PORT/?token=TOKEN
// Everything else goes to stderr.
//
// Settings: settings.json in the data folder (FLOWDECK_DATA_DIR, else the usual one).
// Keys: kept in this process's memory (SessionSecretStore), so the harness never touches the
// user's keychain; with --keychain, the OS keychain (keytar) is used instead.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createConnectFactory } from '@main/app/connect';
import { createAppCore } from '@main/app/core';
import { createDemoStarter } from '@main/app/demo';
import { resolveDataDir } from '@main/config/data-dir';
import { JsonSettingsStore } from '@main/config/json-settings';
import { KeytarSecretStore, SessionSecretStore } from '@main/config/secrets';
import { DemoService } from '../../src/main/demo';
import { startHarnessServer } from './server';

const USAGE = 'harness [--port N] [--demo-time-scale X] [--renderer DIR] [--keychain] [--local-demo NAME ...] [--v2-demo NAME] [--v2-token TOKEN]';

function fail(message: string): never {
  process.stderr.write(`${message}\nUsage: ${USAGE}\n`);
  process.exit(2);
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        'demo-time-scale': { type: 'string' },
        renderer: { type: 'string' },
        keychain: { type: 'boolean' },
        // Another demo service (local flavour) and a server profile NAME for it: a pool to show (screenshots).
        'local-demo': { type: 'string', multiple: true },
        // A v2-only demo deployment (Comfy API v2, no node definitions or queue), made the active
        // server under a self-hosted proxy profile NAME (the v2 app spec).
        'v2-demo': { type: 'string' },
        // Another v2-only demo deployment that answers 401 without this bearer TOKEN, no profile
        // made for it (the v2 app spec adds one as a user would; its address is in the log).
        'v2-token': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number (got "${values.port}").`);
  const timeScale = values['demo-time-scale'] === undefined ? undefined : Number(values['demo-time-scale']);
  if (timeScale !== undefined && (!Number.isFinite(timeScale) || timeScale < 0)) fail(`--demo-time-scale must be a number of 0 or more.`);
  const rendererDir = values.renderer ?? join(import.meta.dirname, '../renderer');

  const log = (level: string, message: string): void => {
    process.stderr.write(`[harness ${level}] ${message}\n`);
  };
  const dataDir = resolveDataDir();
  const core = createAppCore({
    settings: new JsonSettingsStore(dataDir),
    secrets: values.keychain ? new KeytarSecretStore() : new SessionSecretStore(),
    dataDir,
    startDemo: createDemoStarter(timeScale !== undefined ? { timeScale } : {}),
    connect: createConnectFactory(),
    version: packageVersion(),
    // The page names files by path (the browser has no native dialog to hand one over).
    allowAnyPath: true,
    log,
  });
  try {
    await core.start();
  } catch (error) {
    // A data folder that cannot be used (a store that could not even be set aside): a sentence, not a stack.
    await core.dispose().catch(() => undefined);
    process.stderr.write(`harness: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const localDemos: DemoService[] = [];
  for (const name of values['local-demo'] ?? []) {
    // No node cache: every job runs in full, as on a real GPU, so its time shows.
    const demo = new DemoService({ flavour: 'local', host: '127.0.0.1', port: 0, cache: false, ...(timeScale !== undefined ? { timeScale } : {}) });
    await demo.start();
    localDemos.push(demo);
    const saved = await core.invoke('profiles.save', { name, kind: 'local', baseUrl: demo.url });
    if (!saved.ok) fail(`--local-demo ${name}: ${saved.error.message}`);
    log('info', `local demo service "${name}" listening on ${demo.url}`);
  }
  const v2Name = values['v2-demo'];
  if (v2Name !== undefined) {
    const demo = new DemoService({ flavour: 'local', v2: 'only', host: '127.0.0.1', port: 0, cache: false, ...(timeScale !== undefined ? { timeScale } : {}) });
    await demo.start();
    localDemos.push(demo);
    const saved = await core.invoke('profiles.save', { name: v2Name, kind: 'proxy', baseUrl: demo.url, select: true });
    if (!saved.ok) fail(`--v2-demo ${v2Name}: ${saved.error.message}`);
    log('info', `v2-only demo deployment "${v2Name}" listening on ${demo.url}`);
  }
  const v2Token = values['v2-token'];
  if (v2Token !== undefined) {
    if (v2Token.trim() === '') fail('--v2-token needs a token.');
    const demo = new DemoService({
      flavour: 'local',
      v2: 'only',
      v2Token,
      host: '127.0.0.1',
      port: 0,
      cache: false,
      ...(timeScale !== undefined ? { timeScale } : {}),
    });
    await demo.start();
    localDemos.push(demo);
    log('info', `v2-only demo deployment with a token listening on ${demo.url}`);
  }
  let server;
  try {
    server = await startHarnessServer({ core, rendererDir, port, log: (line) => log('warn', line) });
  } catch (error) {
    await core.dispose();
    const code = (error as NodeJS.ErrnoException).code;
    fail(code === 'EADDRINUSE' ? `Port ${port} is already in use.` : `Could not start: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.stdout.write(`${server.url}\n`);
  log('info', `data folder ${dataDir}; keys kept ${values.keychain ? 'in the OS keychain' : 'in memory for this run'}`);

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void Promise.allSettled([server.close()])
      .then(() => core.dispose())
      .then(() => Promise.allSettled(localDemos.map((demo) => demo.stop())))
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main().catch((error: unknown) => {
  process.stderr.write(`harness failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

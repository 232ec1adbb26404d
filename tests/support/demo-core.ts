// An app core as the harness builds it, over a data folder, on the built-in demo service (a real
// HTTP + WebSocket server in this process) with real connections: for tests that drive the core
// through its calls against a real server.
import { createConnectFactory } from '../../src/main/app/connect';
import { createAppCore, type AppCore, type AppCoreDeps } from '../../src/main/app/core';
import { createDemoStarter } from '../../src/main/app/demo';
import { ConfSettingsStore } from '../../src/main/config/conf-settings';
import { SessionSecretStore } from '../../src/main/config/secrets';

export function demoAppCore(dataDir: string, overrides: Partial<AppCoreDeps> = {}): AppCore {
  return createAppCore({
    settings: new ConfSettingsStore(dataDir),
    secrets: new SessionSecretStore(),
    dataDir,
    startDemo: createDemoStarter({ timeScale: 0.05 }),
    connect: createConnectFactory(),
    allowAnyPath: true,
    pollIntervalMs: 250,
    ...overrides,
  });
}

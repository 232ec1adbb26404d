// An app core as the harness builds it, over a data folder, on the built-in demo service (a real
// HTTP + WebSocket server in this process) with real connections: for tests that drive the core
// through its calls against a real server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallInput, CallName, CallResult, IpcError } from '@shared/ipc/contract';
import { createConnectFactory } from '@main/app/connect';
import { createAppCore, type AppCore, type AppCoreDeps } from '@main/app/core';
import { createDemoStarter } from '@main/app/demo';
import type { AppEvent } from '@main/app/event-hub';
import { JsonSettingsStore } from '@main/config/json-settings';
import { SessionSecretStore } from '@main/config/secrets';

export function demoAppCore(dataDir: string, overrides: Partial<AppCoreDeps> = {}): AppCore {
  return createAppCore({
    settings: new JsonSettingsStore(dataDir),
    secrets: new SessionSecretStore(),
    dataDir,
    startDemo: createDemoStarter({ timeScale: 0.05 }),
    connect: createConnectFactory(),
    allowAnyPath: true,
    pollIntervalMs: 250,
    ...overrides,
  });
}

export interface DemoCore {
  /** Made, not started: a test may listen or damage the folder first. */
  core: AppCore;
  dataDir: string;
  /** Every event the core sent since it was made. */
  events: AppEvent[];
  /** Every log line as "level message" (already redacted by the core). */
  logs: string[];
  /** Disposes the core (again is harmless) and removes its data folder. */
  close(): Promise<void>;
}

/**
 * demoAppCore over a fresh data folder in the temp dir, named from `prefix`, recording its events
 * and log lines. `prepare` puts files into the folder before the core is made.
 */
export function demoCoreInTemp(prefix: string, options: { prepare?: (dataDir: string) => void; overrides?: Partial<AppCoreDeps> } = {}): DemoCore {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  options.prepare?.(dataDir);
  const events: AppEvent[] = [];
  const logs: string[] = [];
  const core = demoAppCore(dataDir, { log: (level, message) => void logs.push(`${level} ${message}`), ...options.overrides });
  core.onEvent((event) => void events.push(event));
  return {
    core,
    dataDir,
    events,
    logs,
    async close() {
      await core.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The answer of a call that must succeed. */
export async function ok<N extends CallName>(core: AppCore, name: N, input?: CallInput<N>): Promise<CallResult<N>> {
  const answer = await core.invoke(name, input);
  if (!answer.ok) throw new Error(`${name} failed: ${answer.error.code} ${answer.error.message}`);
  return answer.value as CallResult<N>;
}

/** The error of a call that must fail. */
export async function failure<N extends CallName>(core: AppCore, name: N, input?: CallInput<N>): Promise<IpcError> {
  const answer = await core.invoke(name, input);
  if (answer.ok) throw new Error(`${name} succeeded but should have failed`);
  return answer.error;
}

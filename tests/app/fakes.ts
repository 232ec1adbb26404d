// Minimal doubles for core tests that need no real server (input validation, the harness
// guards). The tests against a real server use the demo service instead.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonSettingsStore } from '@main/config/json-settings';
import { SessionSecretStore } from '@main/config/secrets';
import { createAppCore, type AppCore, type AppCoreDeps } from '@main/app/core';
import type { ConnectFactory } from '@main/app/session';
import type { NodeDefinitions } from '@main/service/object-info';
import type { ConnectionState, EventStream, ServiceApi } from '@main/service/ports';
import type { ServerEvent, ServerProfile } from '@main/service/types';
import { capabilitiesFor } from '@main/service/capabilities';

function unused(name: string): never {
  throw new Error(`${name} is not used by this test`);
}

export class IdleEvents implements EventStream {
  readonly clientId = '00000000-0000-4000-8000-000000000000';
  state: ConnectionState = 'connecting';
  readonly droppedFrames = 0;
  start(): void {}
  async dispose(): Promise<void> {}
  onEvent(_listener: (event: ServerEvent) => void): () => void {
    return () => undefined;
  }
  onStateChange(_listener: (state: ConnectionState) => void): () => void {
    return () => undefined;
  }
  setExpectingActivity(): void {}
}

export function idleApi(profile: ServerProfile): ServiceApi {
  return {
    profile,
    capabilities: capabilitiesFor(profile.kind),
    discover: async () => capabilitiesFor(profile.kind),
    getFeatures: async () => null,
    listJobs: async () => ({ jobs: [], pagination: { offset: 0, limit: 100, total: 0, hasMore: false } }),
    getJob: async () => unused('getJob'),
    stopJob: async () => ({ kind: 'stopped' }),
    getNodeDefinitions: async () => new Map() as NodeDefinitions,
    uploadImage: async () => unused('uploadImage'),
    uploadMask: async () => unused('uploadMask'),
    submit: async () => unused('submit'),
    getJobStatus: async () => unused('getJobStatus'),
    getHistory: async () => null,
    getQueue: async () => ({ running: [], pending: [] }),
    cancel: async () => ({ stillRunning: [] }),
    clearPending: async () => undefined,
    interrupt: async () => undefined,
    download: async () => unused('download'),
  };
}

export const idleConnect: ConnectFactory = (server) => ({ api: idleApi(server), events: new IdleEvents() });

export interface TempCore {
  core: AppCore;
  dataDir: string;
  cleanup(): Promise<void>;
}

/** A core over a fresh data folder, with an in-memory key store and no real server. */
export function tempCore(overrides: Partial<AppCoreDeps> = {}): TempCore {
  const dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-app-'));
  const core = createAppCore({
    settings: new JsonSettingsStore(dataDir),
    secrets: new SessionSecretStore(),
    dataDir,
    startDemo: async () => ({ url: 'http://127.0.0.1:9', stop: async () => undefined }),
    connect: idleConnect,
    allowAnyPath: true,
    ...overrides,
  });
  return {
    core,
    dataDir,
    async cleanup() {
      await core.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

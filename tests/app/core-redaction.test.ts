// The app core against a server that echoes the API key in an execution_error (socket and history):
// jobs.list, the events sent to the window, the core's log and the data folder (SQLite jobs table)
// must hold "[redacted]", never the key.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JobSnapshotView } from '@shared/ipc/contract';
import { demoCoreInTemp, ok, type DemoCore } from '../support/demo-core';
import { startErrorEchoServer } from '../support/error-echo-server';
import { filesUnder } from '../support/files';
import { json, type HostileServer } from '../support/hostile-server';

const KEY = 'sk-app-echoed-9f8e7d6c5b4a3210';
let demo: DemoCore;
let server: HostileServer;

function errorData(promptId: string): Record<string, unknown> {
  return {
    prompt_id: promptId,
    node_id: '1',
    node_type: 'PartnerNode',
    exception_type: 'RuntimeError',
    exception_message: `the partner refused key ${KEY}`,
    traceback: [`  File "partner.py", line 9\n    key = "${KEY}"\n`],
    current_inputs: {},
    executed: [],
    timestamp: Date.now(),
  };
}

beforeAll(async () => {
  // With a key, a submission reads /api/object_info to spot partner nodes: this server answers it empty.
  server = await startErrorEchoServer(errorData, { '/api/object_info': json(200, {}) });
  demo = demoCoreInTemp('flowdeck-app-redact-');
  await demo.core.start();
});

afterAll(async () => {
  await demo?.close();
  await server?.close();
});

it('an execution_error echoing the key reaches jobs.list, the window, the log and the store redacted', { timeout: 30_000 }, async () => {
  const { core, dataDir, events, logs } = demo;
  const profile = await ok(core, 'profiles.save', { name: 'Hostile', kind: 'local', baseUrl: server.url, select: true });
  await ok(core, 'key.save', { profileId: profile.id, key: KEY, sessionOnly: true });
  const workflowJson = JSON.stringify({ '1': { class_type: 'PartnerNode', inputs: {} } });
  const { promptIds } = await ok(core, 'run.submit', { workflowJson });
  const promptId = promptIds[0]!;
  let job: JobSnapshotView | undefined;
  for (let i = 0; i < 100 && job?.phase !== 'failed'; i += 1) {
    await new Promise((r) => setTimeout(r, 100));
    job = (await ok(core, 'jobs.list')).jobs.find((j) => j.promptId === promptId);
  }
  expect(job?.phase).toBe('failed');
  expect(job?.error?.message).toContain('[redacted]');
  expect(JSON.stringify(job)).not.toContain(KEY);
  expect(JSON.stringify(events)).not.toContain(KEY);
  expect(logs.join('\n')).not.toContain(KEY);
  await core.dispose();
  for (const file of filesUnder(dataDir)) expect(readFileSync(join(dataDir, file)).includes(KEY), file).toBe(false);
});

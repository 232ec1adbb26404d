// The app core against a server that echoes the API key in an execution_error (socket and history):
// jobs.list, the events sent to the window, the core's log and the data folder (SQLite jobs table)
// must hold "[redacted]", never the key.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JobSnapshotView } from '../../src/shared/ipc/contract';
import { demoCoreInTemp, ok, type DemoCore } from '../support/demo-core';
import { json, startHostileServer, type HostileServer } from '../support/hostile-server';

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

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

beforeAll(async () => {
  server = await startHostileServer(
    {
      'POST /api/prompt': (req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => (body += d.toString()));
        req.on('end', () => {
          const id = (JSON.parse(body) as { prompt_id: string }).prompt_id;
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ prompt_id: id, number: 1, node_errors: {} }));
          setTimeout(() => {
            for (const ws of server.sockets) {
              ws.send(JSON.stringify({ type: 'execution_start', data: { prompt_id: id, timestamp: Date.now() } }));
              ws.send(JSON.stringify({ type: 'execution_error', data: errorData(id) }));
            }
          }, 300);
        });
      },
      '/api/queue': json(200, { queue_running: [], queue_pending: [] }),
      '/api/object_info': json(200, {}),
      '/api/history/*': (req, res) => {
        const id = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.split('/').pop() ?? '');
        const entry = { prompt: [1, id, {}, {}, []], outputs: {}, status: { status_str: 'error', completed: false, messages: [['execution_error', errorData(id)]] } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ [id]: entry }));
      },
    },
    { eventSocket: true },
  );
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
  for (const file of filesUnder(dataDir)) expect(readFileSync(file).includes(KEY), file).toBe(false);
});

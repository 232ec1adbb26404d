// A server that echoes the API key in an execution_error (message and traceback, over the event
// socket and in the history) must not get the key into `run --json`, the terminal, or any file of
// the data folder (the SQLite jobs table and its journal): server texts are redacted where they
// are decoded.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI, runCli } from '../support/cli';
import { json, startHostileServer, type HostileServer } from '../support/hostile-server';

const KEY = 'sk-echoed-0123456789abcdef';
let work: string;
let server: HostileServer;

function errorEvent(promptId: string): { type: string; data: Record<string, unknown> } {
  return {
    type: 'execution_error',
    data: {
      prompt_id: promptId,
      node_id: '1',
      node_type: 'PartnerNode',
      exception_type: 'RuntimeError',
      exception_message: `request with key ${KEY} refused`,
      traceback: ['Traceback (most recent call last):\n', `  File "partner.py", line 9, in call\n    headers = {"X-API-Key": "${KEY}"}\n`],
      current_inputs: { key: KEY },
      executed: [],
      timestamp: Date.now(),
    },
  };
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

beforeAll(async () => {
  expect(existsSync(CLI)).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-redact-'));
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
              ws.send(JSON.stringify(errorEvent(id)));
            }
          }, 300);
        });
      },
      '/api/queue': json(200, { queue_running: [], queue_pending: [] }),
      '/api/history/*': (req, res) => {
        const id = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.split('/').pop() ?? '');
        const entry = { prompt: [1, id, {}, {}, []], outputs: {}, status: { status_str: 'error', completed: false, messages: [['execution_error', errorEvent(id).data]] } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ [id]: entry }));
      },
    },
    { eventSocket: true },
  );
});

afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

it('an execution_error echoing the key is redacted before it is printed or stored', async () => {
  const wf = join(work, 'wf.json');
  writeFileSync(wf, JSON.stringify({ '1': { class_type: 'PartnerNode', inputs: {} } }));
  const data = join(work, 'data');
  const run = await runCli(['run', wf, '--server', server.url, '--local', '--json', '--out', join(work, 'out')], { env: { FLOWDECK_DATA_DIR: data, FLOWDECK_API_KEY: KEY } });
  expect(run.code, run.stderr).toBe(1);
  const result = JSON.parse(run.stdout) as { status: string; error: string };
  expect(result.status).toBe('failed');
  expect(result.error).toContain('[redacted]');
  expect(run.stdout + run.stderr).not.toContain(KEY);
  const files = filesUnder(data);
  expect(files.some((f) => f.endsWith('.sqlite') || f.endsWith('.db'))).toBe(true);
  for (const file of files) expect(readFileSync(file).includes(KEY), file).toBe(false);
});

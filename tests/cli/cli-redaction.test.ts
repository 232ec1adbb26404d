// A server that echoes the API key in an execution_error (message and traceback, over the event
// socket and in the history) must not get the key into `run --json`, the terminal, or any file of
// the data folder (the SQLite jobs table and its journal): server texts are redacted where they
// are decoded.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI, runCli } from '../support/cli';
import { startErrorEchoServer } from '../support/error-echo-server';
import { filesUnder } from '../support/files';
import type { HostileServer } from '../support/hostile-server';

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

beforeAll(async () => {
  expect(existsSync(CLI)).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-redact-'));
  server = await startErrorEchoServer((id) => errorEvent(id).data);
});

afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

it('an execution_error echoing the key is redacted before it is printed or stored', async () => {
  const wf = join(work, 'wf.json');
  writeFileSync(wf, JSON.stringify({ '1': { class_type: 'PartnerNode', inputs: {} } }));
  const data = join(work, 'data');
  const run = await runCli(['run', wf, '--server', server.url, '--local', '--json', '--out', join(work, 'out')], {
    env: { FLOWDECK_DATA_DIR: data, FLOWDECK_API_KEY: KEY },
  });
  expect(run.code, run.stderr).toBe(1);
  const result = JSON.parse(run.stdout) as { status: string; error: string };
  expect(result.status).toBe('failed');
  expect(result.error).toContain('[redacted]');
  expect(run.stdout + run.stderr).not.toContain(KEY);
  const files = filesUnder(data).map((file) => join(data, file));
  expect(files.some((f) => f.endsWith('.sqlite') || f.endsWith('.db'))).toBe(true);
  for (const file of files) expect(readFileSync(file).includes(KEY), file).toBe(false);
});

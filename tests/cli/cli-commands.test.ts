// flowdeck demo / queue / cancel / interrupt / help, with the built CLI.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { CLI, runCli } from '../support/cli';

let work: string;
let local: DemoService;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'flowdeck-cli-cmd-'));
  local = new DemoService({ flavour: 'local', timeScale: 1 });
  await local.start();
});

afterAll(async () => {
  await local?.stop();
  rmSync(work, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({ FLOWDECK_DATA_DIR: join(work, 'data') });

async function submitSlowJob(clientId: string): Promise<string> {
  const response = await fetch(`${local.url}/api/prompt`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_id: clientId,
      prompt: {
        '1': { class_type: 'DemoSampler', inputs: { prompt: 'slow', seed: 1, steps: 50, width: 32, height: 32, cfg: 7, sampler_name: 'euler', delay_ms: 200 } },
        '2': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
      },
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { prompt_id: string }).prompt_id;
}

describe('queue, cancel and interrupt', () => {
  it('lists running and pending jobs, cancels a pending one and interrupts the running one', async () => {
    const running = await submitSlowJob('cli-test');
    const pending = await submitSlowJob('cli-test');
    await new Promise((r) => setTimeout(r, 300));
    const queue = await runCli(['queue', '--local', '--server', local.url, '--json'], { env: env() });
    expect(queue.code, queue.stderr).toBe(0);
    const snapshot = JSON.parse(queue.stdout) as { running: { promptId: string }[]; pending: { promptId: string }[] };
    expect(snapshot.running.map((e) => e.promptId)).toEqual([running]);
    expect(snapshot.pending.map((e) => e.promptId)).toEqual([pending]);
    const human = await runCli(['queue', '--local', '--server', local.url], { env: env() });
    expect(human.stdout).toContain(`running  ${running}`);

    expect((await runCli(['cancel', pending, '--local', '--server', local.url], { env: env() })).code).toBe(0);
    expect((await runCli(['interrupt', running, '--local', '--server', local.url], { env: env() })).code).toBe(0);
    await new Promise((r) => setTimeout(r, 500));
    const after = JSON.parse((await runCli(['queue', '--local', '--server', local.url, '--json'], { env: env() })).stdout) as {
      running: unknown[];
      pending: unknown[];
    };
    expect(after).toEqual({ running: [], pending: [] });
  });

  it('on the cloud: cancel leaves a running job (exit 1, saying why) and interrupt stops the running jobs', async () => {
    const cloud = new DemoService({ flavour: 'cloud', timeScale: 1, apiKey: 'cli-cloud-key' });
    await cloud.start();
    try {
      const cloudEnv = { ...env(), FLOWDECK_API_KEY: 'cli-cloud-key' };
      const response = await fetch(`${cloud.url}/api/prompt`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': 'cli-cloud-key' },
        body: JSON.stringify({
          prompt: {
            '1': {
              class_type: 'DemoSampler',
              inputs: { prompt: 'slow', seed: 1, steps: 50, width: 32, height: 32, cfg: 7, sampler_name: 'euler', delay_ms: 200 },
            },
            '2': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
          },
        }),
      });
      const { prompt_id: id } = (await response.json()) as { prompt_id: string };
      await new Promise((r) => setTimeout(r, 300));
      const cancel = await runCli(['cancel', id, '--server', cloud.url], { env: cloudEnv });
      expect(cancel.code).toBe(1);
      expect(cancel.stderr).toContain('cannot stop one running job alone');
      const interrupt = await runCli(['interrupt', '--server', cloud.url], { env: cloudEnv });
      expect(interrupt.code, interrupt.stderr).toBe(0);
      expect(interrupt.stdout).toContain('Asked the server to stop the running job.');
      for (let i = 0; i < 100; i += 1) {
        const status = (await (await fetch(`${cloud.url}/api/job/${id}/status`, { headers: { 'X-API-Key': 'cli-cloud-key' } })).json()) as { status: string };
        if (status.status === 'cancelled') return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the job was not stopped');
    } finally {
      await cloud.stop();
    }
  });

  it('refuses cancel without ids (exit 2)', async () => {
    const run = await runCli(['cancel', '--local', '--server', local.url], { env: env() });
    expect(run.code).toBe(2);
  });
});

describe('flowdeck demo', () => {
  it('serves the demo, prints its URL and key, and stops cleanly on Ctrl+C', async () => {
    const child = spawn(process.execPath, [CLI, 'demo', '--key', 'demo-test-key-123'], { env: { PATH: process.env.PATH ?? '', ...env() } });
    let stdout = '';
    const url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${stdout}`)), 15_000);
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (match && stdout.includes('API key:')) {
          clearTimeout(timer);
          resolveUrl(match[1]!);
        }
      });
    });
    expect(stdout).toContain('API key: demo-test-key-123');
    const ok = await fetch(`${url}/api/object_info`, { headers: { 'X-API-Key': 'demo-test-key-123' } });
    expect(ok.status).toBe(200);
    const denied = await fetch(`${url}/api/object_info`);
    expect(denied.status).toBe(401);
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('prints help and refuses unknown commands', async () => {
    const help = await runCli(['help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('flowdeck run WORKFLOW.json');
    const unknown = await runCli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command');
  });
});

// `flowdeck run` against Comfy API v2 surfaces of the demo: a bare v2-only address with no key
// just works (--json says v2), a deployment with a token asks for the key only after its 401, an
// input is uploaded once across runs, and a run killed with SIGKILL between send and answer is
// settled by the next run under the same Idempotency-Key: found and recorded, never run twice
// (v2-only), or reported as a run that may exist (the cloud, which lists no jobs).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoService } from '../../src/main/demo';
import { startDemo } from './support';
import { encodePng } from '@main/images/mask-compose';
import { JobStore } from '@main/jobs/job-store';
import { Store } from '@main/store/store';
import { CLI, runCli } from '../support/cli';

let work: string;

beforeAll(() => {
  expect(existsSync(CLI), `${CLI} (the build runs in tests/support/build.ts)`).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-cli-v2-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function file(name: string, text: string | Uint8Array): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

const SAMPLER = JSON.stringify({
  '1': { class_type: 'DemoSampler', inputs: { prompt: 'cli v2', seed: 7, steps: 3, width: 32, height: 32, cfg: 7, sampler_name: 'euler', delay_ms: 40 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'cliv2' } },
});
const INVERT = JSON.stringify({
  '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'cliv2inv' } },
});

function png(): Uint8Array {
  const data = new Uint8Array(8 * 8 * 4).map((_, i) => (i * 13) % 256);
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return encodePng({ width: 8, height: 8, data });
}

describe('flowdeck run on a v2 surface', () => {
  it('runs against a bare v2-only address with no key, uploads an input once across runs, and --json says v2', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const wf = file('invert.json', INVERT);
    const image = file('input.png', png());
    const dataDir = join(work, 'data-bare');
    for (const n of [1, 2]) {
      const out = join(work, `out-bare-${n}`);
      const run = await runCli(['run', wf, '--server', svc.url, '--upload', `1.image=${image}`, '--out', out, '--json'], {
        env: { FLOWDECK_DATA_DIR: dataDir },
      });
      expect(run.code, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as { contract: string; status: string; expires_at: string; outputs: Array<{ path: string }> };
      expect(result).toMatchObject({ contract: 'v2', status: 'succeeded' });
      // The job says how long the server keeps its outputs (the demo: a day).
      expect(Date.parse(result.expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
      expect(readFileSync(result.outputs[0]!.path).subarray(1, 4).toString()).toBe('PNG');
    }
    expect(svc.v2!.stats.assetUploads).toBe(1);
    expect(svc.v2!.stats.fromHash).toBe(1);
  });

  it('remembers that an address spoke v2 (discovery then asks at once) and finds out when it speaks v1 now', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const v1 = await startDemo({ flavour: 'local' }, 0.05);
    const wf = file('sampler-memory.json', SAMPLER);
    const dataDir = join(work, 'data-memory');
    const memory = join(dataDir, 'server-contracts.json');
    const run = (url: string) =>
      runCli(['run', wf, ...(url === v1.url ? ['--local'] : []), '--server', url, '--out', join(work, 'out-memory'), '--json'], {
        env: { FLOWDECK_DATA_DIR: dataDir },
      });
    const first = await run(svc.url);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(readFileSync(memory, 'utf8'))).toEqual({ [svc.url]: 'v2' });
    // The address now speaks v1 (the memory says v2): discovery still finds out, the run goes through v1.
    writeFileSync(memory, JSON.stringify({ [svc.url]: 'v2', [v1.url]: 'v2' }));
    const changed = await run(v1.url);
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ contract: 'v1', status: 'succeeded' });
    expect(JSON.parse(readFileSync(memory, 'utf8'))).toEqual({ [svc.url]: 'v2', [v1.url]: 'v1' });
    // A damaged memory is ignored (and replaced by what was found).
    writeFileSync(memory, '{not json');
    const damaged = await run(svc.url);
    expect(damaged.code, damaged.stderr).toBe(0);
    expect(JSON.parse(damaged.stdout)).toMatchObject({ contract: 'v2', status: 'succeeded' });
    expect(JSON.parse(readFileSync(memory, 'utf8'))).toEqual({ [svc.url]: 'v2' });
  });

  it('a server that cannot be reached: the run fails as such (not as a store error), the store opened meanwhile left whole', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const dataDir = join(work, 'data-unreachable');
    const run = await runCli(
      ['run', file('sampler-unreachable.json', SAMPLER), '--server', `http://127.0.0.1:${closed}`, '--out', join(work, 'out-unreachable')],
      {
        env: { FLOWDECK_DATA_DIR: dataDir, FLOWDECK_API_KEY: 'key-unreachable-1' },
      },
    );
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain(`127.0.0.1:${closed}`);
    // The store opened meanwhile is left whole: it opens again without being reset.
    const store = await Store.open(join(dataDir, 'flowdeck.sqlite'));
    expect(store.reset ?? null).toBeNull();
    expect(await (await JobStore.open(store)).listInFlight()).toEqual([]);
    await store.close();
  });

  it('asks a deployment with a token for the key only after its 401, then runs with it', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only', v2Token: 'tok-cli-1' }, 0.05);
    const wf = file('sampler-token.json', SAMPLER);
    const dataDir = join(work, 'data-token');
    const missing = await runCli(['run', wf, '--server', svc.url, '--out', join(work, 'out-token')], { env: { FLOWDECK_DATA_DIR: dataDir } });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('FLOWDECK_API_KEY');
    const run = await runCli(['run', wf, '--server', svc.url, '--out', join(work, 'out-token'), '--json'], {
      env: { FLOWDECK_DATA_DIR: dataDir, FLOWDECK_API_KEY: 'tok-cli-1' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('tok-cli-1');
    expect(JSON.parse(run.stdout)).toMatchObject({ contract: 'v2', status: 'succeeded' });
  });

  it('the cloud with v2 runs jobs through v2, and --json says so', async () => {
    const svc = await startDemo({ flavour: 'cloud', v2: 'beside' }, 0.05);
    const run = await runCli(['run', file('sampler-cloud.json', SAMPLER), '--server', svc.url, '--out', join(work, 'out-cloud'), '--json'], {
      env: { FLOWDECK_DATA_DIR: join(work, 'data-cloud'), FLOWDECK_API_KEY: svc.apiKey! },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ contract: 'v2', status: 'succeeded' });
    expect(svc.stats.promptRequests).toBe(0);
    expect(svc.v2!.stats.submitRequests).toBe(1);
  });
});

/** Starts `flowdeck run`, kills it with SIGKILL once the server has made the job (its answer held back). */
async function killBetweenSendAndAnswer(svc: DemoService, wf: string, dataDir: string, key: string | null): Promise<string> {
  svc.v2!.faults.holdSubmitAnswers(60_000);
  const child = spawn(process.execPath, [CLI, 'run', wf, '--server', svc.url, '--out', join(work, 'out-killed')], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', FLOWDECK_DATA_DIR: dataDir, ...(key ? { FLOWDECK_API_KEY: key } : {}) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const deadline = Date.now() + 30_000;
  while (svc.v2!.stats.jobsByKey.size === 0 && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 10));
  child.kill('SIGKILL');
  await exited;
  svc.v2!.faults.holdSubmitAnswers(0);
  expect(svc.v2!.stats.jobsByKey.size, stderr).toBe(1);
  return [...svc.v2!.stats.jobsByKey.keys()][0]!;
}

async function journalRow(dataDir: string, id: string) {
  const store = await Store.open(join(dataDir, 'flowdeck.sqlite'));
  try {
    return await (await JobStore.open(store)).get(id);
  } finally {
    await store.close();
  }
}

describe('flowdeck run killed with SIGKILL between send and answer', () => {
  it('v2-only: the next run sends it again under the same key, finds the job and records it; it ran once', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const wf = file('sampler-kill.json', SAMPLER);
    const dataDir = join(work, 'data-kill');
    const key = await killBetweenSendAndAnswer(svc, wf, dataDir, null);
    // The dead run's intent is journaled under its key, not yet answered.
    expect(await journalRow(dataDir, key)).toMatchObject({ phase: 'submitting' });
    const jobId = [...svc.stats.submissions.keys()][0]!;

    const next = await runCli(['run', wf, '--server', svc.url, '--out', join(work, 'out-after-kill'), '--json'], { env: { FLOWDECK_DATA_DIR: dataDir } });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`an earlier run's send (key ${key}) reached the server as job ${jobId}`);
    // The killed send made exactly one job; the next run made its own, and nothing ran twice.
    expect(svc.v2!.stats.jobsByKey.get(key)).toBe(1);
    expect(svc.stats.submissions.get(jobId)).toBe(1);
    expect(svc.stats.submissions.size).toBe(2);
    expect(await journalRow(dataDir, key)).toBeNull();
    expect(await journalRow(dataDir, jobId)).toMatchObject({ promptId: jobId, origin: 'cli' });
  });

  it('cloud: the next run says plainly that a run may exist, and does not send it as a new job', async () => {
    const svc = await startDemo({ flavour: 'cloud', v2: 'beside' }, 0.05);
    const wf = file('sampler-kill-cloud.json', SAMPLER);
    const dataDir = join(work, 'data-kill-cloud');
    const key = await killBetweenSendAndAnswer(svc, wf, dataDir, svc.apiKey);
    const next = await runCli(['run', wf, '--server', svc.url, '--out', join(work, 'out-after-kill-cloud')], {
      env: { FLOWDECK_DATA_DIR: dataDir, FLOWDECK_API_KEY: svc.apiKey! },
    });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/may have created a job/);
    expect(svc.v2!.stats.jobsByKey.get(key)).toBe(1);
    expect(svc.stats.submissions.size).toBe(2);
    expect(await journalRow(dataDir, key)).toMatchObject({ phase: 'failed', rawStatus: 'may_exist' });
  });
});

describe('serverless and proxy profiles', () => {
  function settings(dataDir: string, profile: Record<string, unknown>): void {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ profiles: [profile], activeProfileId: profile.id }));
  }

  it('a proxy profile runs jobs through v2 with no key and reads node definitions from the server behind it', async () => {
    const proxy = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const server = await startDemo({ flavour: 'local' }, 0.05);
    const dataDir = join(work, 'data-proxy');
    settings(dataDir, { id: 'home', name: 'home', kind: 'proxy', baseUrl: proxy.url, apiBaseUrl: server.url });
    const wf = file('sampler-proxy.json', SAMPLER);
    // --set naming an input DemoSampler lacks: the definitions come from the server's own API.
    const unknown = await runCli(['run', wf, '--set', '1.no_such_input=3', '--out', join(work, 'out-proxy')], { env: { FLOWDECK_DATA_DIR: dataDir } });
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain('sampler_name');
    const run = await runCli(['run', wf, '--out', join(work, 'out-proxy'), '--json'], { env: { FLOWDECK_DATA_DIR: dataDir } });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ contract: 'v2', status: 'succeeded' });
    expect(proxy.v2!.stats.submitRequests).toBe(1);
    expect(server.stats.promptRequests).toBe(0);
  });

  it('a serverless profile needs the account key (after its 401) and runs with it', async () => {
    const deployment = await startDemo({ flavour: 'local', v2: 'only', v2Token: 'acct-key-1' }, 0.05);
    const dataDir = join(work, 'data-serverless');
    settings(dataDir, { id: 'dep', name: 'dep', kind: 'serverless', baseUrl: deployment.url });
    const wf = file('sampler-serverless.json', SAMPLER);
    const missing = await runCli(['run', wf, '--out', join(work, 'out-serverless')], { env: { FLOWDECK_DATA_DIR: dataDir } });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('FLOWDECK_API_KEY');
    const run = await runCli(['run', wf, '--out', join(work, 'out-serverless'), '--json'], {
      env: { FLOWDECK_DATA_DIR: dataDir, FLOWDECK_API_KEY: 'acct-key-1' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ contract: 'v2', status: 'succeeded' });
  });
});

describe('a pool of v2 servers', () => {
  it('run --repeat spreads over two v2-only deployments (no node definitions: each judges the workflow itself)', async () => {
    const a = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const b = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const run = await runCli(
      ['run', file('sampler-pool.json', SAMPLER), '--server', a.url, '--server', b.url, '--repeat', '4', '--out', join(work, 'out-pool'), '--json'],
      {
        env: { FLOWDECK_DATA_DIR: join(work, 'data-pool') },
        timeoutMs: 60_000,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string; contract: string; server: string });
    expect(lines).toHaveLength(4);
    expect(lines.every((l) => l.status === 'succeeded' && l.contract === 'v2')).toBe(true);
    expect(a.v2!.stats.submitRequests + b.v2!.stats.submitRequests).toBe(4);
    expect(a.v2!.stats.submitRequests).toBeGreaterThan(0);
    expect(b.v2!.stats.submitRequests).toBeGreaterThan(0);
  });
});

describe('flowdeck watch on a v2 surface', () => {
  it('runs each image of a folder once through v2 on a bare v2-only address, with no key', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const dir = join(work, 'watch-in');
    mkdirSync(dir, { recursive: true });
    for (const n of [1, 2, 3]) {
      const data = new Uint8Array(8 * 8 * 4).map((_, i) => (i * 7 + n * 50) % 256);
      for (let i = 3; i < data.length; i += 4) data[i] = 255;
      writeFileSync(join(dir, `in-${n}.png`), encodePng({ width: 8, height: 8, data }));
    }
    const wf = file('watch-invert.json', INVERT);
    const out = join(work, 'watch-out');
    const run = await runCli(['watch', dir, '--workflow', wf, '--bind', '1.image', '--server', svc.url, '--out', out, '--once', '--settle', '100'], {
      env: { FLOWDECK_DATA_DIR: join(work, 'data-watch') },
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(svc.v2!.stats.assetUploads).toBe(3);
    expect([...svc.v2!.stats.jobsByKey.values()]).toEqual([1, 1, 1]);
    expect(readdirSync(out).filter((n) => n.endsWith('.png'))).toHaveLength(3);
  });
});

describe('flowdeck cancel and queue on a v2-only deployment', () => {
  it('cancels one running job by id, and says plainly that there is no queue', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const sent = await fetch(`${svc.url}/api/v2/jobs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ workflow: JSON.parse(SAMPLER.replace('"steps":3', '"steps":200')) as unknown }),
    });
    const job = (await sent.json()) as { id: string };
    const env = { FLOWDECK_DATA_DIR: join(work, 'data-cancel') };
    const cancel = await runCli(['cancel', job.id, '--server', svc.url], { env });
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toContain(`Asked the server to cancel ${job.id}`);
    let status = '';
    for (let i = 0; i < 100 && status !== 'canceled'; i += 1) {
      status = ((await (await fetch(`${svc.url}/api/v2/jobs/${job.id}`)).json()) as { status: string }).status;
      if (status !== 'canceled') await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe('canceled');
    const queue = await runCli(['queue', '--server', svc.url], { env });
    expect(queue.code).not.toBe(0);
    expect(queue.stderr).toMatch(/only Comfy API v2, which has no queue/);
  });
});

describe('flowdeck run --mask on a v2-only deployment', () => {
  it('composes the mask into the image here (v2 has no mask upload) and runs the inpaint', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const image = file('mask-original.png', png());
    // Opaque where kept, transparent (alpha 0) in the left half: the masked region.
    const data = new Uint8Array(8 * 8 * 4).fill(255);
    for (let y = 0; y < 8; y += 1) for (let x = 0; x < 4; x += 1) data[(y * 8 + x) * 4 + 3] = 0;
    const mask = file('mask.png', encodePng({ width: 8, height: 8, data }));
    const wf = readFileSync(join(import.meta.dirname, '../../resources/workflows/inpaint-with-mask.json'), 'utf8');
    const run = await runCli(
      ['run', file('inpaint.json', wf), '--server', svc.url, '--mask', `1.image=${image},${mask}`, '--out', join(work, 'out-mask'), '--json'],
      {
        env: { FLOWDECK_DATA_DIR: join(work, 'data-mask') },
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ contract: 'v2', status: 'succeeded' });
    // Only the composed image goes up (the original alone would never be used), once.
    expect(svc.v2!.stats.assetUploads).toBe(1);
  });
});

// `flowdeck watch --server A --server B ...`: a pool of real demo services, with the bad inputs
// the pool must answer clearly while its other servers go on.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { runCli } from '../support/cli';
import { startDemoProcess } from '../support/demo-process';
import { makePng } from '../watch/helpers';
import { closedPorts } from '../support/closed-port';

let work: string;
let a: DemoService;
let b: DemoService;

const invert = {
  '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'pool' } },
};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'flowdeck-cli-pool-'));
  a = new DemoService({ flavour: 'local', timeScale: 0.2 });
  b = new DemoService({ flavour: 'local', timeScale: 0.2 });
  await Promise.all([a.start(), b.start()]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  rmSync(work, { recursive: true, force: true });
});

let case_ = 0;
/** A fresh input folder with `count` distinct images, a data folder, and the workflow file. */
function freshCase(count: number, workflow: object = invert): { inDir: string; outDir: string; dataDir: string; workflowPath: string } {
  case_ += 1;
  const dir = join(work, `case-${case_}`);
  const inDir = join(dir, 'in');
  mkdirSync(inDir, { recursive: true });
  for (let i = 0; i < count; i += 1) writeFileSync(join(inDir, `img-${i}.png`), makePng(case_ * 100 + i));
  const workflowPath = join(dir, 'wf.json');
  writeFileSync(workflowPath, JSON.stringify(workflow));
  return { inDir, outDir: join(dir, 'out'), dataDir: join(dir, 'data'), workflowPath };
}

function watchArgs(c: ReturnType<typeof freshCase>, servers: string[], extra: string[] = []): string[] {
  return [
    'watch',
    c.inDir,
    '--workflow',
    c.workflowPath,
    '--bind',
    '1.image',
    ...servers.flatMap((s) => ['--server', s]),
    '--out',
    c.outDir,
    '--once',
    '--json',
    '--settle',
    '0',
    ...extra,
  ];
}

function events(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('flowdeck watch on a pool', () => {
  it('runs every file once across the servers, and --json says which server ran each', async () => {
    const c = freshCase(8);
    const run = await runCli(watchArgs(c, [a.url, b.url], ['--local']), { env: { FLOWDECK_DATA_DIR: c.dataDir } });
    expect(run.code, run.stderr).toBe(0);
    const done = events(run.stdout).filter((e) => e.event === 'done');
    expect(done).toHaveLength(8);
    expect(new Set(done.map((e) => e.server))).toEqual(new Set([a.url, b.url]));
    expect(readdirSync(c.outDir).filter((n) => n.endsWith('.png'))).toHaveLength(8);
    const pool = events(run.stdout).find((e) => e.event === 'pool') as { servers: Array<{ server: string; done: number }> };
    expect(pool.servers.map((s) => s.done).reduce((x, y) => x + y, 0)).toBe(8);
  });

  it('refuses a pool that names one server twice (exit 2) before connecting', async () => {
    const c = freshCase(1);
    const before = a.stats.uploads;
    const run = await runCli(watchArgs(c, [a.url, `${a.url}/`], ['--local']), { env: { FLOWDECK_DATA_DIR: c.dataDir } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('names the same server as');
    expect(a.stats.uploads).toBe(before);
  });

  it('leaves out a server without a key, says so, and runs everything on the others', async () => {
    const c = freshCase(3);
    // The first server is known as a local one (no key needed); the second is taken for a cloud
    // server (no profile, no --local) and has no key.
    mkdirSync(c.dataDir, { recursive: true });
    writeFileSync(
      join(c.dataDir, 'settings.json'),
      JSON.stringify({ profiles: [{ id: 'gpu-a', name: 'gpu-a', kind: 'local', baseUrl: a.url }], activeProfileId: null }),
    );
    const run = await runCli(watchArgs(c, [a.url, b.url]), { env: { FLOWDECK_DATA_DIR: c.dataDir } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`${b.url} has no API key`);
    expect(run.stderr).toContain('left out of the pool');
    const done = events(run.stdout).filter((e) => e.event === 'done');
    expect(done.map((e) => e.server)).toEqual([a.url, a.url, a.url]);
  });

  it('takes a server whose node definitions cannot be read out of rotation and goes on with the others', async () => {
    const c = freshCase(3);
    a.faults.fail500(1000, 'object_info');
    try {
      const run = await runCli(watchArgs(c, [a.url, b.url], ['--local']), { env: { FLOWDECK_DATA_DIR: c.dataDir }, timeoutMs: 60_000 });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/is out of rotation: its node definitions cannot be read/);
      const done = events(run.stdout).filter((e) => e.event === 'done');
      expect(done.map((e) => e.server)).toEqual([b.url, b.url, b.url]);
    } finally {
      a.faults.reset();
    }
  }, 70_000);

  it('fails at once (exit 5) with every server named when none answers', async () => {
    const c = freshCase(2);
    const ports = await closedPorts(2);
    const urls = ports.map((p) => `http://127.0.0.1:${p}`);
    const run = await runCli(watchArgs(c, urls, ['--local']), { env: { FLOWDECK_DATA_DIR: c.dataDir } });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('No server of the pool answers');
    for (const url of urls) expect(run.stderr).toContain(url);
  });

  it('fails a workflow no server can run (exit 1), naming what each lacks, without sending it', async () => {
    const c = freshCase(2, { ...invert, '9': { class_type: 'NoSuchUpscaler', inputs: {} } });
    const before = [...a.stats.submissions.values(), ...b.stats.submissions.values()].reduce((x, y) => x + y, 0);
    const run = await runCli(watchArgs(c, [a.url, b.url], ['--local']), { env: { FLOWDECK_DATA_DIR: c.dataDir } });
    expect(run.code).toBe(1);
    const failed = events(run.stdout).filter((e) => e.event === 'failed');
    expect(failed).toHaveLength(2);
    expect(String(failed[0]!.reason)).toContain(`${a.url} lacks the node class NoSuchUpscaler`);
    expect(String(failed[0]!.reason)).toContain(`${b.url} lacks the node class NoSuchUpscaler`);
    const after = [...a.stats.submissions.values(), ...b.stats.submissions.values()].reduce((x, y) => x + y, 0);
    expect(after).toBe(before);
  });

  it('run --repeat N spreads the runs over the pool, one line per run naming its server', async () => {
    const c = freshCase(0, {
      '1': { class_type: 'DemoSampler', inputs: { prompt: 'x', seed: 1, steps: 2, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 50 } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'rep' } },
    });
    const run = await runCli(['run', c.workflowPath, '--repeat', '4', '--server', a.url, '--server', b.url, '--local', '--out', c.outDir, '--json'], {
      env: { FLOWDECK_DATA_DIR: c.dataDir },
    });
    expect(run.code, run.stderr).toBe(0);
    const lines = events(run.stdout);
    expect(lines.map((l) => l.run).sort()).toEqual([1, 2, 3, 4]);
    expect(lines.every((l) => l.status === 'succeeded')).toBe(true);
    expect(new Set(lines.map((l) => l.server))).toEqual(new Set([a.url, b.url]));
    expect(readdirSync(c.outDir).filter((n) => n.endsWith('.png'))).toHaveLength(4);
  });

  it('run --repeat N on one server runs it N times there', async () => {
    const c = freshCase(0, {
      '1': { class_type: 'DemoSampler', inputs: { prompt: 'y', seed: 2, steps: 1, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 0 } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'one' } },
    });
    const before = a.stats.promptRequests;
    const run = await runCli(['run', c.workflowPath, '--repeat', '3', '--server', a.url, '--local', '--out', c.outDir, '--json'], {
      env: { FLOWDECK_DATA_DIR: c.dataDir },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(events(run.stdout).map((l) => l.server)).toEqual([a.url, a.url, a.url]);
    expect(a.stats.promptRequests - before).toBe(3);
  });

  it('run --repeat N --concurrency C on one server never has more than C of its runs there at once', async () => {
    const c = freshCase(0, {
      '1': { class_type: 'DemoSampler', inputs: { prompt: 'z', seed: 3, steps: 2, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 600 } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'capped' } },
    });
    // The server's queue, read while the runs go on: running + waiting is what the CLI has there.
    let most = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const queue = (await (await fetch(`${a.url}/queue`)).json()) as { queue_running: unknown[]; queue_pending: unknown[] };
        most = Math.max(most, queue.queue_running.length + queue.queue_pending.length);
        await new Promise((r) => setTimeout(r, 15));
      }
    })();
    const run = await runCli(['run', c.workflowPath, '--repeat', '3', '--concurrency', '1', '--server', a.url, '--local', '--out', c.outDir, '--json'], {
      env: { FLOWDECK_DATA_DIR: c.dataDir },
    });
    polling = false;
    await poll;
    expect(run.code, run.stderr).toBe(0);
    expect(events(run.stdout).every((l) => l.status === 'succeeded')).toBe(true);
    expect(most).toBe(1);
  });

  it('run --repeat refuses a bad count (exit 2)', async () => {
    const c = freshCase(0);
    const run = await runCli(['run', c.workflowPath, '--repeat', '0', '--server', a.url, '--local'], { env: { FLOWDECK_DATA_DIR: c.dataDir } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--repeat must be a whole number from 1 to 10000');
  });

  it('run --repeat moves the runs of a server killed mid-job and still runs each once (exit 0)', async () => {
    const dying = await startDemoProcess();
    try {
      const c = freshCase(0, {
        '1': { class_type: 'DemoSampler', inputs: { prompt: 'k', seed: 3, steps: 3, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 200 } },
        '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'kill' } },
      });
      const running = runCli(['run', c.workflowPath, '--repeat', '6', '--server', a.url, '--server', dying.url, '--local', '--out', c.outDir, '--json'], {
        env: { FLOWDECK_DATA_DIR: c.dataDir, FLOWDECK_UNREACHABLE_AFTER: '1', FLOWDECK_POOL_RECONCILE_AFTER: '2', FLOWDECK_POOL_PROBE_INTERVAL: '0.5' },
        timeoutMs: 60_000,
      });
      // Killed while it runs one of the runs: that run must be given up there and run on the other server.
      for (let busy = false; !busy; await new Promise((r) => setTimeout(r, 20))) {
        const queue = (await (await fetch(`${dying.url}/api/queue`)).json()) as { queue_running: unknown[] };
        busy = queue.queue_running.length > 0;
      }
      await dying.kill();
      const run = await running;
      expect(run.code, run.stderr).toBe(0);
      const lines = events(run.stdout);
      expect(lines).toHaveLength(6);
      expect(lines.every((l) => l.status === 'succeeded')).toBe(true);
      expect(run.stderr).toMatch(/is given up and the run goes to another server/);
      expect(readdirSync(c.outDir).filter((n) => n.endsWith('.png'))).toHaveLength(6);
    } finally {
      await dying.kill();
    }
  }, 70_000);
});

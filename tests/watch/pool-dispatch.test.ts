// A hot folder on a pool of real demo services (in this process, over real sockets): files spread
// over the servers, a job no server can run fails at once naming what each lacks, a server that
// stops answering leaves the rotation and its work moves (exactly once), and it rejoins later.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { Store } from '@main/store/store';
import { JobTracker } from '@main/jobs/tracker';
import { cancelLateJob } from '@main/pool/late-jobs';
import { ServerPool, type PoolServer } from '@main/pool/server-pool';
import { ServiceClient } from '@main/service/client';
import { EventsSocket } from '@main/service/events-socket';
import type { Workflow } from '@main/service/types';
import { HotFolderService, trackerFollower, type HotFolderEvent } from '../../src/main/watch';
import { startDemoProcess } from '../support/demo-process';
import { CollectingSink, folderInput, invertWorkflow, makePng, totalSubmissions, until, type Harness } from './helpers';

interface Member {
  demo: DemoService;
  api: ServiceClient;
  socket: EventsSocket;
  tracker: JobTracker;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function startDemo(port = 0): Promise<DemoService> {
  const demo = new DemoService({ flavour: 'local', timeScale: 0.2, port });
  await demo.start();
  return demo;
}

function connect(demo: DemoService, options: { unreachableAfterMs?: number } = {}): Member {
  return { ...connectUrl(demo.url, options), demo };
}

function connectUrl(url: string, options: { unreachableAfterMs?: number } = {}): Omit<Member, 'demo'> {
  const profile = { kind: 'local' as const, baseUrl: url };
  const api = new ServiceClient(profile, { apiKey: () => null, retry: { baseMs: 20, maxMs: 80, retries: 1 } });
  const socket = new EventsSocket(profile, { apiKey: () => null, backoff: { minMs: 50, maxMs: 200 } });
  const tracker = new JobTracker({
    api,
    events: socket,
    pollIntervalMs: 100,
    staleAfterMs: 300,
    ...(options.unreachableAfterMs ? { unreachableAfterMs: options.unreachableAfterMs } : {}),
  });
  socket.start();
  cleanups.push(async () => {
    await tracker.dispose();
    await socket.dispose();
  });
  return { api, socket, tracker };
}

function poolServer(m: Omit<Member, 'demo'>, name: string, concurrency = 1): PoolServer {
  return { name, api: m.api, follower: trackerFollower(m.tracker, { giveUpWhenUnreachable: true }), clientId: () => m.socket.clientId, concurrency };
}

type PoolHarness = Pick<Harness, 'hot' | 'events' | 'sunk' | 'inDir' | 'outDir' | 'close'>;

/** A hot-folder service whose folders run on `pool`, in a fresh work folder. */
async function poolHarness(pool: ServerPool, first: Omit<Member, 'demo'>): Promise<PoolHarness> {
  const work = mkdtempSync(join(tmpdir(), 'flowdeck-pool-'));
  const store = await Store.open(join(work, 'flowdeck.sqlite'));
  const sink = new CollectingSink();
  const hot = new HotFolderService({
    store,
    api: first.api,
    clientId: first.socket.clientId,
    follower: trackerFollower(first.tracker),
    sink,
    poolFor: () => pool,
  });
  const events: HotFolderEvent[] = [];
  hot.on((event) => events.push(event));
  await hot.start();
  const harness: PoolHarness = {
    hot,
    events,
    sunk: sink.outputs,
    inDir: join(work, 'in'),
    outDir: join(work, 'out'),
    async close() {
      await hot.dispose();
      pool.dispose();
      await store.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
  cleanups.push(() => harness.close());
  mkdirSync(harness.inDir);
  return harness;
}

/** The invert workflow plus a sampler that takes about half a second, so a server has a job in hand for a while. */
function slowInvertWorkflow(): Workflow {
  return {
    ...invertWorkflow(),
    '4': { class_type: 'DemoSampler', inputs: { prompt: 'x', seed: 1, steps: 2, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 250 } },
    '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'slow' } },
  };
}

/** Every input delivered exactly once: one inverted output per input, no input twice. */
function expectOneOutputPerInput(h: PoolHarness, inputs: number): void {
  const inverted = h.sunk.filter((o) => !o.provenance.serverFile.filename.startsWith('slow'));
  expect(new Set(inverted.map((o) => o.provenance.inputPath)).size).toBe(inputs);
  expect(inverted).toHaveLength(inputs);
}

function writeImages(dir: string, count: number, from = 0): void {
  for (let i = from; i < from + count; i += 1) writeFileSync(join(dir, `img-${String(i).padStart(3, '0')}.png`), makePng(i + 1));
}

function pngsIn(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.endsWith('.png'));
}

/** Two in-process demo services as the pool "first" and "second", definitions read. */
async function twoServerPool(): Promise<{ a: Member; b: Member; pool: ServerPool }> {
  const a = connect(await startDemo());
  const b = connect(await startDemo());
  cleanups.push(
    () => a.demo.stop(),
    () => b.demo.stop(),
  );
  const pool = new ServerPool([poolServer(a, 'first'), poolServer(b, 'second')]);
  await pool.prepare();
  return { a, b, pool };
}

describe('a hot folder on a pool of servers', () => {
  it('spreads files over every server, each file once, and each output says which server made it', async () => {
    const { a, b, pool } = await twoServerPool();
    const h = await poolHarness(pool, a);
    writeImages(h.inDir, 10);
    const config = await h.hot.add(folderInput(h), { persist: false, watch: false });
    expect(await h.hot.whenIdle(config.id)).toBe('drained');
    expect(h.hot.counters(config.id)).toMatchObject({ done: 10, failed: 0 });
    expect(totalSubmissions(a.demo) + totalSubmissions(b.demo)).toBe(10);
    expect(totalSubmissions(a.demo)).toBeGreaterThan(0);
    expect(totalSubmissions(b.demo)).toBeGreaterThan(0);
    expect(pngsIn(h.outDir)).toHaveLength(10);
    const servers = new Set(h.sunk.map((o) => o.provenance.server.baseUrl));
    expect(servers).toEqual(new Set([a.demo.url, b.demo.url]));
    const rows = h.hot.files(config.id);
    for (const row of rows) expect([a.demo.url, b.demo.url]).toContain(row.server);
    // Each sidecar names the server its output came from.
    for (const output of h.sunk) {
      const sidecar = JSON.parse(readFileSync(output.provenance.sidecarPath, 'utf8')) as { job: { server: { base_url: string } } };
      expect(sidecar.job.server.base_url).toBe(output.provenance.server.baseUrl);
    }
    const status = pool.status();
    expect(status.members.map((m) => m.done).reduce((x, y) => x + y, 0)).toBe(10);
    expect(status.jobsPerMinute).toBe(10);
  });

  it('fails a job that no server can run at once, naming what each server lacks, and sends nothing', async () => {
    const { a, b, pool } = await twoServerPool();
    const h = await poolHarness(pool, a);
    writeImages(h.inDir, 2);
    const workflow: Workflow = {
      ...invertWorkflow(),
      '9': { class_type: 'NoSuchUpscaler', inputs: {} },
      '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    };
    const config = await h.hot.add(folderInput(h, { workflow }), { persist: false, watch: false });
    expect(await h.hot.whenIdle(config.id)).toBe('drained');
    const rows = h.hot.files(config.id);
    expect(rows.map((r) => r.state)).toEqual(['failed', 'failed']);
    expect(rows[0]!.reason).toContain('first lacks the node class NoSuchUpscaler');
    expect(rows[0]!.reason).toContain('second lacks the node class NoSuchUpscaler');
    expect(totalSubmissions(a.demo) + totalSubmissions(b.demo)).toBe(0);
  });

  it('refuses a chosen value no server offers, and picks the least-loaded server, then the preferred one', async () => {
    const { pool } = await twoServerPool();
    const workflow: Workflow = {
      '1': {
        class_type: 'DemoSampler',
        inputs: { prompt: 'x', seed: 1, steps: 1, width: 16, height: 16, cfg: 7, sampler_name: 'no-such-sampler', delay_ms: 0 },
      },
    };
    const choice = pool.choose(workflow, []);
    expect(choice.kind).toBe('none');
    expect(choice.kind === 'none' && choice.reason).toContain('DemoSampler.sampler_name "no-such-sampler" (node 1)');
    const fine: Workflow = {
      '1': { class_type: 'DemoSampler', inputs: { prompt: 'x', seed: 1, steps: 1, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 0 } },
    };
    const ok = pool.choose(fine, []);
    expect(ok.kind === 'server' && ok.member.name).toBe('first');
    // Least loaded first: with the first busy, the second.
    if (ok.kind === 'server') pool.take(ok.member);
    const next = pool.choose(fine, []);
    expect(next.kind === 'server' && next.member.name).toBe('second');
    if (next.kind === 'server') pool.take(next.member);
    expect(pool.choose(fine, []).kind).toBe('busy');
    pool.dispose();
  });

  it('moves the work of a server that stops answering, runs each file once, and takes the server back when it answers again', async () => {
    const a = connect(await startDemo(), { unreachableAfterMs: 400 });
    // A child process, killed with SIGKILL as a crashed server goes (a stopped in-process demo
    // would say goodbye: interrupt its jobs and close its sockets politely).
    const dying = await startDemoProcess();
    cleanups.push(() => dying.kill());
    const port = Number(new URL(dying.url).port);
    const dead = connectUrl(dying.url, { unreachableAfterMs: 400 });
    cleanups.push(() => a.demo.stop());
    const pool = new ServerPool([poolServer(a, 'steady'), poolServer(dead, 'dying')], { reconcileAfterMs: 600, probeIntervalMs: 100 });
    await pool.prepare();
    const h = await poolHarness(pool, a);
    // Slow jobs, so the dying server has one in hand when it goes.
    const workflow = slowInvertWorkflow();
    writeImages(h.inDir, 12);
    const config = await h.hot.add(folderInput(h, { workflow }), { persist: false, watch: false });
    // Killed while it runs a job of ours: that job must be given up and run elsewhere, once.
    for (let started = false; !started;) started = (await dead.api.getQueue()).running.length > 0;
    await dying.kill();
    expect(await h.hot.whenIdle(config.id)).toBe('drained');
    expect(pool.status().members[1]!.inRotation).toBe(false);
    expect(
      h.hot
        .files(config.id)
        .filter((r) => r.state === 'failed')
        .map((r) => r.reason),
    ).toEqual([]);
    expect(h.hot.counters(config.id)).toMatchObject({ done: 12, failed: 0 });
    expectOneOutputPerInput(h, 12);
    expect(h.events.some((e) => e.type === 'warning' && e.message.includes('is given up and the file runs on another server'))).toBe(true);
    // It comes back on the same address: a probe finds it and it rejoins.
    const back = await startDemoProcess(port);
    cleanups.push(() => back.kill());
    await until(() => pool.status().members[1]!.inRotation, 'the server back in rotation', 5000);
  });

  it('collects from a server that answers again before the deadline, and runs again a job it has forgotten', async () => {
    const a = connect(await startDemo(), { unreachableAfterMs: 300 });
    cleanups.push(() => a.demo.stop());
    const flaky = await startDemoProcess();
    cleanups.push(() => flaky.kill());
    const port = Number(new URL(flaky.url).port);
    const f = connectUrl(flaky.url, { unreachableAfterMs: 300 });
    // A long deadline: the file must not wait for it, since the server comes back first.
    const pool = new ServerPool([poolServer(a, 'steady'), poolServer(f, 'flaky')], { reconcileAfterMs: 60_000, probeIntervalMs: 100 });
    await pool.prepare();
    const h = await poolHarness(pool, a);
    const workflow = slowInvertWorkflow();
    writeImages(h.inDir, 8);
    const started = Date.now();
    const config = await h.hot.add(folderInput(h, { workflow }), { persist: false, watch: false });
    for (let busy = false; !busy;) busy = (await f.api.getQueue()).running.length > 0;
    await flaky.kill();
    // Restarted on the same address: it answers again, without the job (a restart forgets its queue).
    const back = await startDemoProcess(port);
    cleanups.push(() => back.kill());
    expect(await h.hot.whenIdle(config.id)).toBe('drained');
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(
      h.hot
        .files(config.id)
        .filter((r) => r.state === 'failed')
        .map((r) => r.reason),
    ).toEqual([]);
    expect(h.hot.counters(config.id)).toMatchObject({ done: 8, failed: 0 });
    expectOneOutputPerInput(h, 8);
    expect(h.events.some((e) => e.type === 'warning' && e.message.includes('no longer knows job') && e.message.includes('The file runs again.'))).toBe(true);
  }, 40_000);

  it('pauses with the reason when every server is down, without spinning, and resumes when one answers again', async () => {
    const first = await startDemoProcess();
    const second = await startDemoProcess();
    cleanups.push(
      () => first.kill(),
      () => second.kill(),
    );
    const m1 = connectUrl(first.url, { unreachableAfterMs: 400 });
    const m2 = connectUrl(second.url, { unreachableAfterMs: 400 });
    const pool = new ServerPool([poolServer(m1, 'one'), poolServer(m2, 'two')], { reconcileAfterMs: 500, probeIntervalMs: 150 });
    await pool.prepare();
    const h = await poolHarness(pool, m1);
    await Promise.all([first.kill(), second.kill()]);
    let probes = 0;
    const counting = pool.on((event) => {
      if (event.type === 'down') probes += 1;
    });
    writeImages(h.inDir, 4);
    const config = await h.hot.add(folderInput(h, { pauseRecheckMs: 100 }), { persist: false, watch: false });
    expect(await h.hot.whenIdle(config.id)).toBe('paused');
    const status = h.hot.status(config.id);
    expect(status.pauseKind).toBe('servers_down');
    expect(status.pauseReason).toContain('one (');
    expect(status.pauseReason).toContain('two (');
    expect(status.pauseReason).toContain('resumes by itself when one answers again');
    // Paused, not spinning: over a second only the probes' pace of requests goes out.
    const seen = h.events.length;
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.events.length - seen).toBeLessThan(40);
    counting();
    expect(probes).toBeLessThanOrEqual(2);
    const back = await startDemoProcess(Number(new URL(first.url).port));
    cleanups.push(() => back.kill());
    await until(() => h.hot.counters(config.id).done === 4, 'the folder to resume and finish', 15_000);
    expect(h.hot.status(config.id).paused).toBe(false);
  }, 30_000);

  it('cancels a late job that a returning server still has queued', async () => {
    const demo = await startDemo();
    cleanups.push(() => demo.stop());
    const m = connect(demo);
    const pool = new ServerPool([poolServer(m, 'one'), poolServer(connect(await startDemo()), 'two')]);
    cleanups.push(async () => pool.dispose());
    const slow: Workflow = {
      '1': { class_type: 'DemoSampler', inputs: { prompt: 'x', seed: 1, steps: 4, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 2000 } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'late' } },
    };
    await m.api.submit(slow, { clientId: m.socket.clientId, promptId: '00000000-0000-4000-8000-000000000001' });
    await m.api.submit({ ...slow, '1': { ...(slow['1'] as object), inputs: { ...(slow['1'] as { inputs: object }).inputs, seed: 2 } } } as Workflow, {
      clientId: m.socket.clientId,
      promptId: '00000000-0000-4000-8000-000000000002',
    });
    const note = await cancelLateJob(pool.members[0]!, '00000000-0000-4000-8000-000000000002');
    expect(note).toContain('was cancelled there');
    const queue = await m.api.getQueue();
    expect(queue.pending.map((e) => e.promptId)).not.toContain('00000000-0000-4000-8000-000000000002');
    // Running on a local server: interrupted by its id.
    const running = await cancelLateJob(pool.members[0]!, '00000000-0000-4000-8000-000000000001');
    expect(running).toContain('was cancelled there');
    expect(await cancelLateJob(pool.members[0]!, '00000000-0000-4000-8000-00000000000f')).toBeNull();
  });

  it('refuses a pool that names one server twice', async () => {
    const demo = await startDemo();
    cleanups.push(() => demo.stop());
    const m = connect(demo);
    const twice = connect(demo);
    expect(() => new ServerPool([poolServer(m, 'a'), poolServer(twice, 'b')])).toThrow(/names the server .* twice/);
  });
});

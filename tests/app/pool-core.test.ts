// The pool through the app core, against two real demo services (local flavour, real HTTP +
// WebSocket, real files): the pool's settings are checked when saved (one server twice, a server
// without its key, an unknown profile), a hot folder set to "Run on: Pool" sends its files to both
// servers (each row names its server; each output enters the library with the profile of the
// server that made it), pool.status events report jobs per server and throughput, and pool.queues
// reads each pool server's own queue.
import { mkdirSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { poolStatusSchema, type EventName, type EventPayload, type HotFileView, type HotFolderView, type ProfileView } from '@shared/ipc/contract';
import type { AppCore } from '@main/app/core';
import { DemoService } from '../../src/main/demo';
import { Store } from '@main/store/store';
import { Library } from '../../src/main/library';
import { invertWorkflow, makePng, totalSubmissions, until } from '../watch/helpers';
import { failure, ok } from '../support/demo-core';
import { poolAppFixture } from '../support/pool-app';

const FILES = 8;
const app = poolAppFixture('flowdeck-pool-core-');
let inDir = '';
let outDir = '';

beforeEach(() => {
  inDir = join(app.work, 'in');
  outDir = join(app.work, 'out');
  mkdirSync(inDir, { recursive: true });
});

const openCore = (): Promise<AppCore> => app.openCore();
const payloads = <E extends EventName>(name: E): EventPayload<E>[] => app.payloads(name);

async function addProfile(c: AppCore, name: string, kind: 'local' | 'cloud', baseUrl: string): Promise<ProfileView> {
  return ok(c, 'profiles.save', { name, kind, baseUrl });
}

describe('the pool in the app core', () => {
  it('refuses a pool with one server twice, a server without its key or an unknown profile, naming each; keeps the order it is given', async () => {
    const c = await openCore();
    const gpu1 = await addProfile(c, 'GPU 1', 'local', app.first.url);
    const again = await addProfile(c, 'GPU 1 again', 'local', `${app.first.url}/`);
    const gpu2 = await addProfile(c, 'GPU 2', 'local', app.second.url);
    const cloud = await addProfile(c, 'Cloud', 'cloud', 'https://cloud.example.invalid');
    expect(await ok(c, 'pool.get')).toEqual({ servers: [] });

    const twice = await failure(c, 'pool.save', {
      servers: [
        { profileId: gpu1.id, concurrency: 1 },
        { profileId: gpu1.id, concurrency: 2 },
      ],
    });
    expect(twice.code).toBe('invalid_input');
    expect(twice.message).toMatch(/"GPU 1" is in the pool twice/);

    const sameServer = await failure(c, 'pool.save', {
      servers: [
        { profileId: gpu1.id, concurrency: 1 },
        { profileId: again.id, concurrency: 1 },
      ],
    });
    expect(sameServer.message).toMatch(/"GPU 1 again" and "GPU 1" are the same server/);

    const keyless = await failure(c, 'pool.save', {
      servers: [
        { profileId: gpu2.id, concurrency: 1 },
        { profileId: cloud.id, concurrency: 3 },
        { profileId: 'gone', concurrency: 1 },
      ],
    });
    expect(keyless.message).toMatch(/"Cloud" has no API key/);
    expect(keyless.message).toMatch(/no server profile with id "gone"/);
    expect((keyless.details as { issues: unknown[] }).issues).toHaveLength(2);
    // Nothing was saved by a refused save.
    expect(await ok(c, 'pool.get')).toEqual({ servers: [] });

    // With its key the cloud server may join; the order given is the order kept.
    await ok(c, 'profiles.select', { id: cloud.id });
    await ok(c, 'key.save', { key: 'sk-test-pool-key-0001', sessionOnly: true });
    const saved = await ok(c, 'pool.save', {
      servers: [
        { profileId: cloud.id, concurrency: 3 },
        { profileId: gpu2.id, concurrency: 2 },
      ],
    });
    expect(saved.servers).toEqual([
      { profileId: cloud.id, name: 'Cloud', kind: 'cloud', concurrency: 3 },
      { profileId: gpu2.id, name: 'GPU 2', kind: 'local', concurrency: 2 },
    ]);
    expect(payloads('pool.changed').at(-1)).toEqual(saved);

    // A removed profile leaves the pool.
    await ok(c, 'profiles.remove', { id: cloud.id });
    expect((await ok(c, 'pool.get')).servers.map((s) => s.name)).toEqual(['GPU 2']);
  });

  it("sends a pool folder's files to both servers, names the server of each row, and reports the pool's status", async () => {
    const c = await openCore();
    const gpu1 = await addProfile(c, 'GPU 1', 'local', app.first.url);
    const gpu2 = await addProfile(c, 'GPU 2', 'local', app.second.url);
    await ok(c, 'pool.save', {
      servers: [
        { profileId: gpu1.id, concurrency: 1 },
        { profileId: gpu2.id, concurrency: 1 },
      ],
    });
    expect(await ok(c, 'pool.status')).toEqual({ active: false, members: [], jobsPerMinute: 0 });

    const before = [totalSubmissions(app.first), totalSubmissions(app.second)] as const;
    const folder = await ok(c, 'hotFolders.save', {
      inputDir: inDir,
      outputDir: outDir,
      workflowJson: JSON.stringify(invertWorkflow()),
      bind: '1.image',
      settleMs: 100,
      runOn: 'pool',
    });
    expect(folder.runOn).toBe('pool');
    for (let i = 0; i < FILES; i += 1) writeFileSync(join(inDir, `img${i}.png`), makePng(900 + i));
    await until(() => payloads('hotFolders.drained').some((d) => d.folderId === folder.id && d.counters.done === FILES), 'the pool folder drained', 60_000);

    // Both servers ran files, and together exactly one job per file.
    const ran = [totalSubmissions(app.first) - before[0], totalSubmissions(app.second) - before[1]];
    expect(ran[0]).toBeGreaterThan(0);
    expect(ran[1]).toBeGreaterThan(0);
    expect(ran[0]! + ran[1]!).toBe(FILES);

    const files = (await ok(c, 'hotFolders.files', { id: folder.id })).files as HotFileView[];
    expect(files).toHaveLength(FILES);
    const byServer = new Map<string, number>();
    for (const row of files) byServer.set(`${row.serverName}@${row.server}`, (byServer.get(`${row.serverName}@${row.server}`) ?? 0) + 1);
    expect(byServer.get(`GPU 1@${app.first.url}`)).toBe(ran[0]);
    expect(byServer.get(`GPU 2@${app.second.url}`)).toBe(ran[1]);

    // The status events: valid by the contract, both servers named, in rotation, the work counted.
    const statuses = payloads('pool.status');
    for (const status of statuses) expect(poolStatusSchema.safeParse(status).success).toBe(true);
    await until(
      () =>
        (payloads('pool.status')
          .at(-1)
          ?.members.reduce((n, m) => n + m.done, 0) ?? 0) === FILES,
      'the last status counts every file',
    );
    const last = payloads('pool.status').at(-1)!;
    expect(last.active).toBe(true);
    expect(
      last.members.map((m) => ({ name: m.name, profileId: m.profileId, inRotation: m.inRotation, concurrency: m.concurrency, running: m.running })),
    ).toEqual([
      { name: 'GPU 1', profileId: gpu1.id, inRotation: true, concurrency: 1, running: 0 },
      { name: 'GPU 2', profileId: gpu2.id, inRotation: true, concurrency: 1, running: 0 },
    ]);
    expect(last.members.map((m) => m.done)).toEqual(ran);
    expect(last.jobsPerMinute).toBe(FILES);
    // Some status said a server was busy while the files ran.
    expect(statuses.some((s) => s.members.some((m) => m.running > 0))).toBe(true);
    expect(await ok(c, 'pool.status')).toEqual(last);

    // Each pool server's queue, from its own server, in the pool's order.
    const queues = await ok(c, 'pool.queues');
    expect(queues.servers.map((q) => ({ name: q.name, error: q.error, running: q.running.length, pending: q.pending.length }))).toEqual([
      { name: 'GPU 1', error: null, running: 0, pending: 0 },
      { name: 'GPU 2', error: null, running: 0, pending: 0 },
    ]);

    // The library records each output with the profile of the server that made it.
    await c.dispose();
    const store = await Store.open(join(app.dataDir, 'flowdeck.sqlite'));
    const library = await Library.open({ store, root: join(app.dataDir, 'library'), source: () => null });
    try {
      const items = await library.list();
      expect(items).toHaveLength(FILES);
      const profileOfRow = new Map(files.map((f) => [f.promptId, f.serverName === 'GPU 1' ? gpu1.id : gpu2.id]));
      for (const item of items) expect(item.server.profileId).toBe(profileOfRow.get(item.promptId));
    } finally {
      await library.dispose();
      await store.close();
    }
    expect(payloads('pool.status').at(-1)).toEqual({ active: false, members: [], jobsPerMinute: 0 });
  });

  it('leaves a pool server whose key was removed out of rotation, with the reason, and runs the files on the others', async () => {
    const c = await openCore();
    const gpu1 = await addProfile(c, 'GPU 1', 'local', app.first.url);
    const gpu2 = await addProfile(c, 'GPU 2', 'local', app.second.url);
    const cloud = await addProfile(c, 'Cloud', 'cloud', 'https://cloud.example.invalid');
    await ok(c, 'key.save', { profileId: cloud.id, key: 'sk-test-pool-key-0002', sessionOnly: true });
    await ok(c, 'pool.save', {
      servers: [
        { profileId: cloud.id, concurrency: 1 },
        { profileId: gpu1.id, concurrency: 1 },
        { profileId: gpu2.id, concurrency: 1 },
      ],
    });
    const folder = await ok(c, 'hotFolders.save', {
      inputDir: inDir,
      outputDir: outDir,
      workflowJson: JSON.stringify(invertWorkflow()),
      bind: '1.image',
      settleMs: 100,
      runOn: 'pool',
    });
    // The key goes: the pool is opened again without that server.
    await ok(c, 'key.remove', { profileId: cloud.id });
    const status = await ok(c, 'pool.status');
    expect(status.members.map((m) => [m.name, m.inRotation])).toEqual([
      ['GPU 1', true],
      ['GPU 2', true],
      ['Cloud', false],
    ]);
    expect(status.members[2]!.reason).toMatch(/"Cloud" has no API key/);
    for (let i = 0; i < 4; i += 1) writeFileSync(join(inDir, `k${i}.png`), makePng(950 + i));
    await until(() => payloads('hotFolders.drained').some((d) => d.folderId === folder.id && d.counters.done === 4), 'the files ran on the others', 60_000);
    const servers = new Set(((await ok(c, 'hotFolders.files', { id: folder.id })).files as HotFileView[]).map((f) => f.serverName));
    expect([...servers].every((name) => name === 'GPU 1' || name === 'GPU 2')).toBe(true);
  });

  it('takes a pool server that stops answering out of rotation, says why in pool.status, and runs the files on the other', async () => {
    const doomed = new DemoService({ flavour: 'local', timeScale: 0.3 });
    await doomed.start();
    try {
      const c = await openCore();
      const gpu1 = await addProfile(c, 'GPU 1', 'local', app.first.url);
      const gone = await addProfile(c, 'Doomed', 'local', doomed.url);
      // The doomed server first: it is preferred, so files go to it until it stops answering.
      await ok(c, 'pool.save', {
        servers: [
          { profileId: gone.id, concurrency: 1 },
          { profileId: gpu1.id, concurrency: 1 },
        ],
      });
      const folder = await ok(c, 'hotFolders.save', {
        inputDir: inDir,
        outputDir: outDir,
        workflowJson: JSON.stringify(invertWorkflow()),
        bind: '1.image',
        settleMs: 100,
        runOn: 'pool',
      });
      expect((await ok(c, 'pool.status')).members.every((m) => m.inRotation)).toBe(true);
      await doomed.stop();
      for (let i = 0; i < 3; i += 1) writeFileSync(join(inDir, `d${i}.png`), makePng(970 + i));
      await until(
        () => payloads('hotFolders.drained').some((d) => d.folderId === folder.id && d.counters.done === 3),
        'the files ran on the other server',
        60_000,
      );
      await until(
        () => payloads('pool.status').some((s) => s.members.some((m) => m.name === 'Doomed' && !m.inRotation)),
        'a status with the server out of rotation',
      );
      const out = payloads('pool.status').find((s) => s.members.some((m) => m.name === 'Doomed' && !m.inRotation))!;
      expect(poolStatusSchema.safeParse(out).success).toBe(true);
      expect(out.members.find((m) => m.name === 'Doomed')!.reason).toMatch(/.+/);
      const files = (await ok(c, 'hotFolders.files', { id: folder.id })).files as HotFileView[];
      expect(files.map((f) => f.serverName)).toEqual(['GPU 1', 'GPU 1', 'GPU 1']);
    } finally {
      await doomed.stop().catch(() => undefined);
    }
  });

  it('pauses a pool folder whose pool has no usable server (also after a restart), sends nothing elsewhere, and runs once the pool can be used or the folder is set to the active server', async () => {
    let c = await openCore();
    const gpu1 = await addProfile(c, 'GPU 1', 'local', app.first.url);
    await ok(c, 'pool.save', { servers: [{ profileId: gpu1.id, concurrency: 1 }] });
    const save = { inputDir: inDir, outputDir: outDir, workflowJson: JSON.stringify(invertWorkflow()), bind: '1.image', settleMs: 100 };
    const folder = await ok(c, 'hotFolders.save', { ...save, runOn: 'pool' });
    const statusOf = async (core: AppCore): Promise<HotFolderView['status']> =>
      (await ok(core, 'hotFolders.list')).folders.find((f) => f.id === folder.id)!.status;
    const rowOf = async (core: AppCore, name: string): Promise<HotFileView | undefined> =>
      ((await ok(core, 'hotFolders.files', { id: folder.id })).files as HotFileView[]).find((f) => f.relPath === name);

    // The pool's only server goes (and the pool with it); the app restarts too.
    await ok(c, 'profiles.remove', { id: gpu1.id });
    const expectWaiting = async (core: AppCore): Promise<void> => {
      const status = await statusOf(core);
      expect(status).toMatchObject({ paused: true, pauseKind: 'servers_down' });
      expect(status.pauseReason).toMatch(/^No server of the pool can be used: No server is in the pool\. The folder runs by itself once the pool can be used/);
    };
    await expectWaiting(c);
    await c.dispose();
    c = await openCore();
    await expectWaiting(c);
    expect(payloads('app.notice').some((n) => n.message.includes('waits. No server of the pool can be used'))).toBe(true);

    // A file waits: it runs on no other server (not the active one).
    const before = [totalSubmissions(app.first), totalSubmissions(app.second)] as const;
    writeFileSync(join(inDir, 'p0.png'), makePng(990));
    await until(() => payloads('hotFolders.file').some((r) => r.relPath === 'p0.png' && r.state === 'waiting'), 'p0.png settled and waiting', 20_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await rowOf(c, 'p0.png')).toMatchObject({ state: 'waiting', promptId: null, server: null });

    // The pool gains a usable server: the folder runs by itself, on it.
    const gpu2 = await addProfile(c, 'GPU 2', 'local', app.second.url);
    await ok(c, 'pool.save', { servers: [{ profileId: gpu2.id, concurrency: 1 }] });
    expect((await statusOf(c)).paused).toBe(false);
    await until(() => payloads('hotFolders.file').some((r) => r.relPath === 'p0.png' && r.state === 'done'), 'p0.png ran on the pool', 30_000);
    expect(await rowOf(c, 'p0.png')).toMatchObject({ state: 'done', serverName: 'GPU 2' });
    expect([totalSubmissions(app.first) - before[0], totalSubmissions(app.second) - before[1]]).toEqual([0, 1]);

    // Unusable again; the user sets the folder to run on the active server: it runs there.
    await ok(c, 'profiles.remove', { id: gpu2.id });
    await expectWaiting(c);
    writeFileSync(join(inDir, 'p1.png'), makePng(991));
    await until(() => payloads('hotFolders.file').some((r) => r.relPath === 'p1.png' && r.state === 'waiting'), 'p1.png waiting', 20_000);
    const onActive = await ok(c, 'hotFolders.save', { ...save, id: folder.id, runOn: 'active' });
    expect(onActive.status.paused).toBe(false);
    await until(() => payloads('hotFolders.file').some((r) => r.relPath === 'p1.png' && r.state === 'done'), 'p1.png ran on the active server', 30_000);
    expect([totalSubmissions(app.first) - before[0], totalSubmissions(app.second) - before[1]]).toEqual([0, 1]);
  });

  it("reads an unreachable pool server's queue as an error of that column, the other still read", async () => {
    const c = await openCore();
    const gpu1 = await addProfile(c, 'GPU 1', 'local', app.first.url);
    const gone = await addProfile(c, 'Gone', 'local', 'http://127.0.0.1:9');
    await ok(c, 'pool.save', {
      servers: [
        { profileId: gpu1.id, concurrency: 1 },
        { profileId: gone.id, concurrency: 1 },
      ],
    });
    const queues = await ok(c, 'pool.queues');
    expect(queues.servers.map((q) => q.name)).toEqual(['GPU 1', 'Gone']);
    expect(queues.servers[0]!.error).toBeNull();
    expect(queues.servers[1]!.error).toMatch(/.+/);
  });
  it("holds a cloud server to its account's limit (/api/features), asked once by the server's session, not again by the pool", async () => {
    const cloudDemo = new DemoService({ flavour: 'cloud', timeScale: 0.3 });
    await cloudDemo.start();
    try {
      const c = await openCore();
      const cloud = await addProfile(c, 'Cloud', 'cloud', cloudDemo.url);
      await ok(c, 'profiles.select', { id: cloud.id });
      await ok(c, 'key.save', { key: cloudDemo.apiKey!, sessionOnly: true });
      // The active session's own discovery, before the pool opens its own session on the cloud. The
      // session connects lazily: let it connect before another profile takes its place.
      await until(() => payloads('connection.state').some((s) => s.profileId === cloud.id && s.state === 'connected'), 'the cloud session connected');
      await until(() => cloudDemo.stats.featuresRequests >= 1, 'the first session asked for the features');
      const gpu1 = await addProfile(c, 'GPU 1', 'local', app.first.url);
      await ok(c, 'profiles.select', { id: gpu1.id });
      const before = cloudDemo.stats.featuresRequests;

      await ok(c, 'pool.save', {
        servers: [
          { profileId: cloud.id, concurrency: 3 },
          { profileId: gpu1.id, concurrency: 1 },
        ],
      });
      const folder = await ok(c, 'hotFolders.save', {
        inputDir: inDir,
        outputDir: outDir,
        workflowJson: JSON.stringify(invertWorkflow()),
        bind: '1.image',
        settleMs: 100,
        runOn: 'pool',
      });
      for (let i = 0; i < 3; i += 1) writeFileSync(join(inDir, `img${i}.png`), makePng(1200 + i));
      await until(() => payloads('hotFolders.drained').some((d) => d.folderId === folder.id && d.counters.done === 3), 'the pool folder drained', 60_000);

      // The demo cloud's account runs one job at a time: the setting of 3 gives way to it.
      const last = payloads('pool.status').at(-1)!;
      expect(last.members.map((m) => [m.name, m.concurrency])).toEqual([
        ['Cloud', 1],
        ['GPU 1', 1],
      ]);
      expect(cloudDemo.stats.featuresRequests - before).toBe(1);
    } finally {
      await cloudDemo.stop();
    }
  });
});

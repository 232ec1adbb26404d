// The browser harness's guards (token, Origin, Host) and its WebSocket transport, with the bridge
// script evaluated exactly as served to the page.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { FlowdeckApi } from '@shared/ipc/contract';
import { startHarnessServer, type HarnessServer } from '../../e2e/harness/server';
import { createConnectFactory } from '@main/app/connect';
import { createDemoStarter } from '@main/app/demo';
import { tempCore, type TempCore } from './fakes';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  bytes: Buffer;
}

function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8'), bytes });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a socket; resolves with "open" or the HTTP status of the refusal. */
function tryUpgrade(url: string, headers: Record<string, string> = {}): Promise<'open' | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', () => undefined);
  });
}

describe('browser harness server', () => {
  let t: TempCore;
  let server: HarnessServer;
  let rendererDir: string;
  const opened: WebSocket[] = [];

  beforeAll(async () => {
    t = tempCore();
    await t.core.start();
    rendererDir = mkdtempSync(join(tmpdir(), 'flowdeck-renderer-'));
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><html><head><title>x</title></head><body></body></html>');
    writeFileSync(join(rendererDir, 'app.js'), 'console.log(1)');
    server = await startHarnessServer({ core: t.core, rendererDir });
  });
  afterAll(async () => {
    for (const ws of opened) ws.terminate();
    await server.close();
    await t.cleanup();
    rmSync(rendererDir, { recursive: true, force: true });
  });

  it('prints an address of the promised form', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+$/);
  });

  it('serves the page only with the token, with the bridge injected and a CSP reaching only its own socket', async () => {
    expect((await get(server.port, '/')).status).toBe(403);
    expect((await get(server.port, '/?token=wrong')).status).toBe(403);
    expect((await get(server.port, `/?token=${server.token}x`)).status).toBe(403);
    const page = await get(server.port, `/?token=${server.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<script src="/__flowdeck/bridge.js?token=${server.token}"></script>`);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`connect-src ws://127.0.0.1:${server.port}`);
    expect((await get(server.port, '/__flowdeck/bridge.js')).status).toBe(403);
    expect((await get(server.port, '/app.js')).status).toBe(200);
    expect((await get(server.port, '/../../etc/passwd')).status).toBe(404);
    expect((await get(server.port, '/%2e%2e/%2e%2e/etc/passwd')).status).toBe(404);
  });

  it('refuses a foreign Origin or a foreign Host even with the token', async () => {
    expect((await get(server.port, `/?token=${server.token}`, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(server.port, `/?token=${server.token}`, { Host: `evil.example:${server.port}` })).status).toBe(403);
    expect((await get(server.port, '/app.js', { Origin: 'http://127.0.0.1:1' })).status).toBe(403);
    expect((await get(server.port, `/?token=${server.token}`, { Origin: `http://127.0.0.1:${server.port}` })).status).toBe(200);
  });

  it('refuses a WebSocket without the token, with a wrong token, or from a foreign Origin', async () => {
    const base = `ws://127.0.0.1:${server.port}/__flowdeck/ws`;
    expect(await tryUpgrade(base)).toBe(403);
    expect(await tryUpgrade(`${base}?token=nope`)).toBe(403);
    expect(await tryUpgrade(`${base}?token=${server.token}`, { Origin: 'http://evil.example' })).toBe(403);
    expect(await tryUpgrade(`ws://127.0.0.1:${server.port}/elsewhere?token=${server.token}`)).toBe(403);
    expect(await tryUpgrade(`${base}?token=${server.token}`, { Origin: `http://127.0.0.1:${server.port}` })).toBe('open');
  });

  it('carries the contract: the served bridge script builds a working, frozen window.flowdeck', async () => {
    const script = (await get(server.port, `/__flowdeck/bridge.js?token=${server.token}`)).body;
    const origin = `http://127.0.0.1:${server.port}`;
    // A browser sends its Origin on every WebSocket: so does this stand-in.
    class BrowserLikeSocket extends WebSocket {
      constructor(url: string) {
        super(url, { headers: { Origin: origin } });
        opened.push(this);
      }
    }
    const fakeWindow: Record<string, unknown> = {};
    const fakeDocument = { currentScript: { src: `${origin}/__flowdeck/bridge.js?token=${server.token}` } };
    const fakeLocation = new URL(`${origin}/?token=${server.token}`);
    new Function('window', 'document', 'location', 'WebSocket', script)(fakeWindow, fakeDocument, fakeLocation, BrowserLikeSocket);
    const api = fakeWindow.flowdeck as FlowdeckApi;
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(fakeWindow, 'flowdeck')?.writable).toBe(false);

    const changes: unknown[] = [];
    api.on('profiles.changed', (p) => void changes.push(p));
    expect(await api.invoke('renderer.ready')).toMatchObject({ ok: true, value: { version: expect.any(String) } });
    const listed = await api.invoke('profiles.list');
    expect(listed).toMatchObject({ ok: true, value: { profiles: [{ kind: 'demo' }] } });
    const saved = await api.invoke('profiles.save', { name: 'Local', kind: 'local', baseUrl: 'http://127.0.0.1:8188/' });
    expect(saved).toMatchObject({ ok: true, value: { name: 'Local', kind: 'local', baseUrl: 'http://127.0.0.1:8188' } });
    await expect.poll(() => changes.length).toBeGreaterThan(0);
    // Errors cross as envelopes, with the same shapes as over IPC.
    expect(await api.invoke('profiles.select', { id: 'missing' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await api.invoke('key.save', { key: '' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('hands a one-way note to the core and answers nothing', async () => {
    const origin = `http://127.0.0.1:${server.port}`;
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/__flowdeck/ws?token=${server.token}`, { headers: { Origin: origin } });
    opened.push(ws);
    const replies: Array<{ kind?: string; id?: number }> = [];
    ws.on('message', (data) => void replies.push(JSON.parse(String(data)) as { kind?: string; id?: number }));
    await new Promise((r) => ws.once('open', r));
    const notes: unknown[][] = [];
    const notify = t.core.notify;
    t.core.notify = (...args) => {
      notes.push(args);
      notify(...args);
    };
    try {
      ws.send(JSON.stringify({ kind: 'note', name: 'preview.ack', input: { promptId: 'p', seq: 3 } }));
      ws.send(JSON.stringify({ kind: 'call', id: 7, name: 'profiles.list' }));
      await expect.poll(() => replies.length).toBe(1);
      await new Promise((r) => setTimeout(r, 50));
      // One answer, to the call; the note got none.
      expect(replies).toEqual([expect.objectContaining({ kind: 'result', id: 7 })]);
      expect(notes).toEqual([['preview.ack', { promptId: 'p', seq: 3 }]]);
    } finally {
      t.core.notify = notify;
    }
  });
});

describe('browser harness media', () => {
  let t: TempCore;
  let server: HarnessServer;
  let rendererDir: string;
  let itemId = 0;
  let filePath = '';

  beforeAll(async () => {
    t = tempCore({ startDemo: createDemoStarter({ timeScale: 0.05 }), connect: createConnectFactory(), pollIntervalMs: 250 });
    await t.core.start();
    rendererDir = mkdtempSync(join(tmpdir(), 'flowdeck-renderer-'));
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><html><head><title>x</title></head><body></body></html>');
    server = await startHarnessServer({ core: t.core, rendererDir });
    await t.core.invoke('renderer.ready', undefined);
    const workflowJson = JSON.stringify({
      '3': {
        class_type: 'DemoSampler',
        inputs: { prompt: 'harness media', seed: 5, steps: 2, width: 32, height: 32, cfg: 7, sampler_name: 'euler', delay_ms: 10 },
      },
      '9': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'Flowdeck' } },
    });
    expect(await t.core.invoke('run.submit', { workflowJson })).toMatchObject({ ok: true });
    const deadline = Date.now() + 20_000;
    for (;;) {
      const listed = await t.core.invoke('library.list', undefined);
      const items = listed.ok ? (listed.value as { items: { id: number; status: string }[] }).items : [];
      if (items[0]?.status === 'done') {
        itemId = items[0].id;
        break;
      }
      if (Date.now() > deadline) throw new Error('the job output never reached the library');
      await new Promise((r) => setTimeout(r, 100));
    }
    const detail = await t.core.invoke('library.get', { id: itemId });
    filePath = detail.ok ? (detail.value as { path: string }).path : '';
  }, 40_000);
  afterAll(async () => {
    await server.close();
    await t.cleanup();
    rmSync(rendererDir, { recursive: true, force: true });
  });

  it('serves /media only with the cookie the page set, same-origin guards still on', async () => {
    const page = await get(server.port, `/?token=${server.token}`);
    const setCookie = String(page.headers['set-cookie']);
    expect(setCookie).toMatch(new RegExp(`^flowdeck_media_${server.port}=[A-Za-z0-9_-]+; HttpOnly; SameSite=Strict; Path=/media$`));
    const cookie = setCookie.split(';')[0]!;
    expect(cookie).not.toContain(server.token);
    expect((await get(server.port, '/')).headers['set-cookie']).toBeUndefined();

    const path = `/media/file/${itemId}`;
    expect((await get(server.port, path)).status).toBe(403);
    expect((await get(server.port, path, { Cookie: `${cookie}x` })).status).toBe(403);
    expect((await get(server.port, path, { Cookie: `flowdeck_media_1=${cookie.split('=')[1]}` })).status).toBe(403);
    expect((await get(server.port, `${path}?token=${server.token}`)).status).toBe(403);

    const file = await get(server.port, path, { Cookie: `other=1; ${cookie}` });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.bytes.equals(readFileSync(filePath))).toBe(true);
    const part = await get(server.port, path, { Cookie: cookie, Range: 'bytes=0-7' });
    expect(part.status).toBe(206);
    expect([...part.bytes]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const head = await get(server.port, `/media/thumb/${itemId}`, { Cookie: cookie }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('image/jpeg');
    expect((await get(server.port, '/media/file/999999', { Cookie: cookie })).status).toBe(404);

    expect((await get(server.port, path, { Cookie: cookie, Host: `evil.example:${server.port}` })).status).toBe(403);
    expect((await get(server.port, path, { Cookie: cookie, Origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(server.port, path, { Cookie: cookie }, 'POST')).status).toBe(405);
  });
});

// Uploads and downloads over real HTTP: multipart fields as PROTOCOL.md lists them (parsed back on
// the server side), the 302 to a storage host on another origin fetched without the key, one fresh
// URL after an expired one, temp-file hygiene, safe final names, no clobbering.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '@main/service/client';
import type { ServerKind } from '@main/service/types';
import { TestServer, type Seen } from './support/http-server';

const KEY = 'sk-files-KEY-42';
let service: TestServer;
let storage: TestServer;
let dir: string;

function client(kind: ServerKind): ServiceClient {
  return new ServiceClient({ kind, baseUrl: service.url }, { apiKey: () => KEY, retry: { retries: 2, sleep: async () => {} } });
}

async function formOf(seen: Seen): Promise<FormData> {
  const request = new Request('http://x/', { method: 'POST', headers: { 'content-type': String(seen.headers['content-type']) }, body: seen.body });
  return request.formData();
}

beforeEach(async () => {
  service = await new TestServer().start();
  storage = await new TestServer().start();
  dir = await mkdtemp(path.join(tmpdir(), 'flowdeck-files-'));
});

afterEach(async () => {
  await service.close();
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

describe('uploads', () => {
  it('image: multipart with image (file + name), type, overwrite, subfolder; boundary from the library', async () => {
    const file = path.join(dir, 'photo.png');
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4, 5]);
    await writeFile(file, bytes);
    service.json('POST', '/api/upload/image', 200, { name: 'photo.png', subfolder: 'in', type: 'input', extra: true });
    const result = await client('local').uploadImage(file, { overwrite: true, subfolder: 'in' });
    expect(result).toEqual({ name: 'photo.png', subfolder: 'in', type: 'input' });
    const seen = service.requests[0];
    if (!seen) throw new Error('no request');
    expect(String(seen.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    const form = await formOf(seen);
    const image = form.get('image');
    if (!(image instanceof Blob)) throw new Error('image is not a file');
    expect((image as File).name).toBe('photo.png');
    expect(image.type).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer())).toEqual(bytes);
    expect(form.get('type')).toBe('input');
    expect(form.get('overwrite')).toBe('true');
    expect(form.get('subfolder')).toBe('in');
  });

  it('mask: original_ref is a JSON string with type, type=input', async () => {
    const file = path.join(dir, 'mask.png');
    await writeFile(file, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    service.json('POST', '/api/upload/mask', 200, { name: 'clipspace-mask-1.png', subfolder: 'clipspace', type: 'input' });
    const result = await client('local').uploadMask(file, {
      originalRef: { filename: 'sample.png', subfolder: '', type: 'input' },
      subfolder: 'clipspace',
      overwrite: true,
    });
    expect(result).toEqual({ name: 'clipspace-mask-1.png', subfolder: 'clipspace', type: 'input' });
    const form = await formOf(service.requests[0] as Seen);
    expect(JSON.parse(String(form.get('original_ref')))).toEqual({ filename: 'sample.png', subfolder: '', type: 'input' });
    expect(form.get('type')).toBe('input');
    expect(form.get('subfolder')).toBe('clipspace');
    expect(form.get('overwrite')).toBe('true');
    expect((form.get('image') as File).name).toBe('mask.png');
  });

  it('a 5xx upload is retried with a fresh body; a 400 is not', async () => {
    const file = path.join(dir, 'a.png');
    await writeFile(file, 'not really a png');
    let n = 0;
    service.on('POST', '/api/upload/image', (_req, res) => {
      n += 1;
      if (n === 1) res.writeHead(502).end();
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"name":"a.png","subfolder":"","type":"input"}');
    });
    await expect(client('cloud').uploadImage(file)).resolves.toMatchObject({ name: 'a.png' });
    const bodies = await Promise.all(service.requests.map(async (r) => Buffer.from(await ((await formOf(r)).get('image') as Blob).arrayBuffer()).toString()));
    expect(bodies).toEqual(['not really a png', 'not really a png']);
    service.requests.length = 0;
    service.on('POST', '/api/upload/image', (_req, res) => res.writeHead(400).end());
    await expect(client('cloud').uploadImage(file)).rejects.toMatchObject({ kind: 'invalid_workflow', status: 400 });
    expect(service.requests).toHaveLength(1);
  });

  it('a file that grows or shrinks after its size was checked fails the send, naming it', async () => {
    const file = path.join(dir, 'b.png');
    for (const changed of ['twelve bytes and then some', 'twelve']) {
      await writeFile(file, 'twelve bytes');
      service.requests.length = 0;
      let n = 0;
      service.on('POST', '/api/upload/image', async (_req, res) => {
        n += 1;
        if (n > 1) return res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"name":"b.png","subfolder":"","type":"input"}');
        // Changed between the first attempt and its retry, after the size was checked.
        await writeFile(file, changed);
        return res.writeHead(502).end();
      });
      const failure = await client('local')
        .uploadImage(file)
        .catch((error: unknown) => error);
      expect(failure).toMatchObject({
        kind: 'invalid_workflow',
        message: 'b.png changed while it was being uploaded (it is no longer 12 bytes); the upload was stopped.',
      });
      // The second attempt never completed a body: the server answered only the first.
      expect(n).toBeLessThanOrEqual(2);
      expect(service.requests).toHaveLength(1);
    }
  });

  it('an empty file is sent as an empty part', async () => {
    const file = path.join(dir, 'empty.png');
    await writeFile(file, '');
    service.json('POST', '/api/upload/image', 200, { name: 'empty.png', subfolder: '', type: 'input' });
    await expect(client('local').uploadImage(file)).resolves.toMatchObject({ name: 'empty.png' });
    const image = (await formOf(service.requests[0]!)).get('image') as Blob;
    expect(image.size).toBe(0);
  });
});

describe('downloads', () => {
  const ref = { filename: 'out_00001_.png', subfolder: 'samples', type: 'output' };
  const payload = Buffer.alloc(300_000, 7);

  function serveStorage(): void {
    storage.on('GET', '/signed/out.png', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(payload.length) }).end(payload);
    });
  }

  it('cloud: 302 from /api/view (with the key) to another origin, fetched WITHOUT the key', async () => {
    serveStorage();
    service.on('GET', '/api/view', (_req, res) => {
      res.writeHead(302, { Location: `${storage.url}/signed/out.png?sig=abc&expires=9` }).end();
    });
    const progress: Array<[number, number | null]> = [];
    const result = await client('cloud').download(ref, dir, { onProgress: (r, t) => progress.push([r, t]) });
    expect(result).toEqual({ path: path.join(dir, 'out_00001_.png'), bytes: payload.length, contentType: 'image/png', redirected: true });
    expect((await readFile(result.path)).equals(payload)).toBe(true);
    const view = service.requests[0];
    expect(view?.headers['x-api-key']).toBe(KEY);
    expect(Object.fromEntries(view?.query ?? [])).toEqual({ filename: 'out_00001_.png', subfolder: 'samples', type: 'output' });
    expect(storage.requests).toHaveLength(1);
    expect(storage.requests[0]?.headers['x-api-key']).toBeUndefined();
    expect(JSON.stringify(storage.requests[0]?.headers)).not.toContain(KEY);
    expect(progress.at(-1)).toEqual([payload.length, payload.length]);
    expect(await readdir(dir)).toEqual(['out_00001_.png']);
  });

  it('local: 200 from /api/view is the file', async () => {
    service.on('GET', '/api/view', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png' }).end(payload);
    });
    const result = await client('local').download(ref, dir);
    expect(result.redirected).toBe(false);
    expect((await readFile(result.path)).equals(payload)).toBe(true);
    expect(service.requests[0]?.headers['x-api-key']).toBeUndefined();
  });

  it('an expired signed URL (403) is asked for again once', async () => {
    serveStorage();
    storage.on('GET', '/signed/old.png', (_req, res) => res.writeHead(403).end('Request has expired'));
    let views = 0;
    service.on('GET', '/api/view', (_req, res) => {
      views += 1;
      res.writeHead(302, { Location: `${storage.url}/signed/${views === 1 ? 'old' : 'out'}.png` }).end();
    });
    const result = await client('cloud').download(ref, dir);
    expect(views).toBe(2);
    expect(result.bytes).toBe(payload.length);
  });

  it('a 400 "expired" counts as expired; twice is an error, and no file is left behind', async () => {
    storage.on('GET', '/signed/old.png', (_req, res) =>
      res
        .writeHead(400, { 'Content-Type': 'application/xml' })
        .end('<Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message></Error>'),
    );
    service.on('GET', '/api/view', (_req, res) => {
      res.writeHead(302, { Location: `${storage.url}/signed/old.png` }).end();
    });
    await expect(client('cloud').download(ref, dir)).rejects.toMatchObject({ kind: 'forbidden' });
    expect(service.count('GET', '/api/view')).toBe(2);
    expect(await readdir(dir)).toEqual([]);
  });

  it('a relative Location resolves against the service', async () => {
    service.on('GET', '/files/x', (_req, res) => res.writeHead(200).end('abc'));
    service.on('GET', '/api/view', (_req, res) => res.writeHead(302, { Location: '/files/x' }).end());
    const result = await client('cloud').download(ref, dir);
    expect(await readFile(result.path, 'utf8')).toBe('abc');
  });

  it('a body cut short: retried once, then an error; the temp file is removed', async () => {
    service.on('GET', '/api/view', (_req, res) => {
      res.writeHead(200, { 'Content-Length': '1000000' });
      res.write(Buffer.alloc(1000));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await expect(client('local').download(ref, dir)).rejects.toMatchObject({ kind: 'network' });
    expect(service.count('GET', '/api/view')).toBe(2);
    expect(await readdir(dir)).toEqual([]);
  });

  it('404 from /api/view is not_found; nothing is written', async () => {
    await expect(client('local').download(ref, dir)).rejects.toMatchObject({ kind: 'not_found', status: 404 });
    expect(await readdir(dir)).toEqual([]);
  });

  it('a hostile server name stays inside destDir; destName is sanitised too; no clobbering', async () => {
    service.on('GET', '/api/view', (_req, res) => res.writeHead(200).end('data'));
    const evil = await client('local').download({ filename: '../../evil.png', subfolder: '', type: 'output' }, dir);
    expect(evil.path).toBe(path.join(dir, 'evil.png'));
    const again = await client('local').download({ filename: '../../evil.png', subfolder: '', type: 'output' }, dir);
    expect(again.path).toBe(path.join(dir, 'evil (1).png'));
    const named = await client('local').download(ref, dir, { destName: '..\\CON.png' });
    expect(named.path).toBe(path.join(dir, '_CON.png'));
    const replaced = await client('local').download({ filename: 'evil.png', subfolder: '', type: 'output' }, dir, { overwrite: true });
    expect(replaced.path).toBe(path.join(dir, 'evil.png'));
    expect((await readdir(dir)).sort()).toEqual(['_CON.png', 'evil (1).png', 'evil.png']);
  });

  it('digest: sha256, size and head taken while streaming; alsoWriteTo gets the same bytes from the one read', async () => {
    const varied = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 31) % 251));
    service.on('GET', '/api/view', (_req, res) => res.writeHead(200).end(varied));
    const teeDir = path.join(dir, 'tee');
    await mkdir(teeDir);
    const tee = path.join(teeDir, 'copy.png.part-1-abcdef');
    const result = await client('local').download(ref, dir, { digest: { headBytes: 100 }, alsoWriteTo: [tee] });
    expect(result.digest).toEqual({ sha256: createHash('sha256').update(varied).digest('hex'), size: varied.length, head: varied.subarray(0, 100) });
    expect((await readFile(tee)).equals(varied)).toBe(true);
    expect((await readFile(result.path)).equals(varied)).toBe(true);
    expect(service.count('GET', '/api/view')).toBe(1);
  });

  it('a failed download removes its tee copies too', async () => {
    service.on('GET', '/api/view', (_req, res) => {
      res.writeHead(200, { 'Content-Length': '1000000' });
      res.write(Buffer.alloc(1000));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const teeDir = path.join(dir, 'tee');
    await mkdir(teeDir);
    await expect(client('local').download(ref, dir, { alsoWriteTo: [path.join(teeDir, 'copy.part-1-abcdef')] })).rejects.toMatchObject({ kind: 'network' });
    expect(await readdir(teeDir)).toEqual([]);
    expect(await readdir(dir)).toEqual(['tee']);
  });

  it('a caller abort mid-body cancels and cleans up', async () => {
    const controller = new AbortController();
    service.on('GET', '/api/view', (_req, res) => {
      res.writeHead(200, { 'Content-Length': '10000000' });
      res.write(Buffer.alloc(64 * 1024));
      setTimeout(() => controller.abort(), 20);
    });
    await expect(client('local').download(ref, dir, { signal: controller.signal })).rejects.toMatchObject({ kind: 'cancelled' });
    expect(await readdir(dir)).toEqual([]);
  });
});

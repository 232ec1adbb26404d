// The v2 client against small hostile v2 servers: every read is bounded (a job answer, an event
// stream frame), a stream that never ends a frame is cut, a link to another host never gets the
// key, and an error body echoing the key never shows it. Plus the event-stream parser on its own.
import { afterEach, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceError } from '@main/service/errors';
import { V2Client } from '@main/service/v2/client';
import { readSse } from '@main/service/v2/sse';
import { startHostileServer, type HostileServer } from '../support/hostile-server';

const servers: HostileServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const KEY = 'sekret-key-0123456789';
const JOB = '7f3d2c1b-9a8e-4d6f-b012-3c4d5e6f7a8b';

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function client(url: string): V2Client {
  return new V2Client({ kind: 'cloud', baseUrl: url }, { apiKey: () => KEY, v1: null, retry: { retries: 0 } });
}

describe('readSse', () => {
  it('reads frames across chunk borders and CRLF, skips comments, and cuts a frame over the cap', async () => {
    const chunks = [': keepalive\r\n\r\nevent: sta', 'tus\r\ndata: {"status":"running"}\r\n\r\n', 'event: progress\ndata: {"value":0.5}\n\n'];
    const frames = [];
    for await (const frame of readSse(Readable.from(chunks.map((c) => Buffer.from(c))), 1024)) frames.push(frame);
    expect(frames).toEqual([
      { event: 'status', data: '{"status":"running"}' },
      { event: 'progress', data: '{"value":0.5}' },
    ]);
    const endless = Readable.from(
      (function* () {
        for (let i = 0; i < 1000; i += 1) yield Buffer.from(`data: ${'x'.repeat(1000)}\n`);
      })(),
    );
    await expect(async () => {
      for await (const frame of readSse(endless, 64 * 1024)) void frame;
    }).rejects.toThrow(/larger than/);
  });
});

describe('the v2 client against hostile servers', () => {
  it('stops reading a job answer past its cap, and says so', async () => {
    const server = await startHostileServer({
      [`GET /api/v2/jobs/${JOB}`]: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id":"' + JOB + '","status":"queued","pad":"');
        const chunk = 'x'.repeat(64 * 1024);
        let sent = 0;
        const pump = (): void => {
          while (sent < 64 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
          if (sent < 64 * 1024 * 1024) res.once('drain', pump);
          else res.end('"}');
        };
        pump();
      },
    });
    servers.push(server);
    const failure = await client(server.url)
      .getJobStatus(JOB)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ServiceError);
    expect((failure as ServiceError).kind).toBe('too_large');
  });

  it('never sends the key to a host an output link points to, and never shows a key the server echoes', async () => {
    const credentials: string[] = [];
    const storage = await startHostileServer({
      '/file.png': (req, res) => {
        credentials.push(`${req.headers.authorization ?? ''}${req.headers['x-api-key'] ?? ''}`);
        res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      },
    });
    servers.push(storage);
    const server = await startHostileServer({
      [`GET /api/v2/jobs/${JOB}`]: (_req, res) =>
        json(res, 200, {
          id: JOB,
          status: 'succeeded',
          outputs: [
            {
              id: 'out-1',
              node_id: '9',
              name: 'file.png',
              type: 'image',
              content_type: 'image/png',
              size_bytes: 0,
              hash: null,
              url: `${storage.url}/file.png`,
              url_expires_at: new Date(Date.now() + 3600_000).toISOString(),
            },
          ],
          error: null,
        }),
      'POST /api/v2/jobs': (req, res) =>
        json(res, 422, { error: { code: 'invalid_workflow', message: `bad key ${String(req.headers.authorization)}`, details: null } }),
    });
    servers.push(server);
    const api = client(server.url);
    const history = await api.getHistory(JOB);
    const dir = mkdtempSync(join(tmpdir(), 'flowdeck-v2-hostile-'));
    try {
      const file = await api.download(history!.outputs[0]!, dir);
      expect(file.bytes).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(storage.requests).toEqual(['GET /file.png']);
    expect(credentials).toEqual(['']);
    const refused = await api.submit({ '1': { class_type: 'X', inputs: {} } }, { clientId: 'c' }).catch((e: unknown) => e);
    expect((refused as Error).message).toContain('[redacted]');
    expect((refused as Error).message).not.toContain(KEY);
  });
});

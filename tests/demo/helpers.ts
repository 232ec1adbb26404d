// Test helpers for the demo service: start instances that are stopped after each test, talk to
// them with plain fetch and the `ws` package, and wait for frames without timed assertions.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import WebSocket from 'ws';
import { DemoService, type DemoServiceOptions } from '../../src/main/demo';
import type { RgbaImage } from '@main/demo/node-api';
import { encodePngImage, solidImage, traceNodes } from './trace-nodes';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

/** Starts a demo service (trace-shaped nodes unless given) that is stopped after the test. */
export async function startDemo(options: Partial<DemoServiceOptions> & { flavour: DemoServiceOptions['flavour'] }): Promise<DemoService> {
  const svc = new DemoService({ nodes: traceNodes(), timeScale: 0.01, ...options });
  cleanups.push(() => svc.stop());
  await svc.start();
  return svc;
}

export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'flowdeck-demo-test-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** fetch against the demo service, with its key on the cloud (unless `key` says otherwise). */
export function api(svc: DemoService, path: string, init: RequestInit & { key?: string | null } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const key = init.key === undefined ? svc.apiKey : init.key;
  if (key) headers.set('X-API-Key', key);
  return fetch(svc.url + path, { ...init, headers, redirect: 'manual' });
}

export async function postJson(svc: DemoService, path: string, body: unknown, key?: string | null): Promise<Response> {
  return api(svc, path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
    ...(key === undefined ? {} : { key }),
  });
}

export interface SubmitAnswer {
  status: number;
  json: Record<string, unknown>;
}

export async function submit(svc: DemoService, body: Record<string, unknown>, key?: string | null): Promise<SubmitAnswer> {
  const res = await postJson(svc, '/api/prompt', body, key);
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

export async function uploadFile(
  svc: DemoService,
  bytes: Uint8Array,
  filename: string,
  fields: Record<string, string> = {},
  route = '/api/upload/image',
): Promise<Response> {
  const form = new FormData();
  form.append('image', new Blob([bytes]), filename);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return api(svc, route, { method: 'POST', body: form });
}

/** Uploads a small PNG (solid colour unless an image is given) and returns the name the server chose. */
export async function uploadPng(svc: DemoService, filename = 'sample.png', image: RgbaImage = solidImage(32, 24, [200, 30, 30, 255])): Promise<string> {
  const res = await uploadFile(svc, encodePngImage(image), filename);
  if (res.status !== 200) throw new Error(`upload failed: ${res.status}`);
  return ((await res.json()) as { name: string }).name;
}

export type Frame = { kind: 'json'; type: string; data: Record<string, unknown> } | { kind: 'binary'; bytes: Buffer };

export class TestSocket {
  readonly frames: Frame[] = [];
  private listeners: Array<() => void> = [];
  closed = false;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const buf = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
      if (isBinary) this.frames.push({ kind: 'binary', bytes: buf });
      else {
        const msg = JSON.parse(buf.toString('utf8')) as { type: string; data: Record<string, unknown> };
        this.frames.push({ kind: 'json', type: msg.type, data: msg.data });
      }
      for (const l of this.listeners) l();
    });
    ws.on('close', () => {
      this.closed = true;
      for (const l of this.listeners) l();
    });
  }

  static async open(svc: DemoService, query: Record<string, string> = {}, path = '/ws'): Promise<TestSocket> {
    const params = new URLSearchParams(query);
    if (svc.flavour === 'cloud' && !('token' in query) && svc.apiKey) params.set('token', svc.apiKey);
    const ws = new WebSocket(`${svc.url.replace(/^http/, 'ws')}${path}?${params.toString()}`);
    const socket = new TestSocket(ws);
    cleanups.push(async () => {
      ws.terminate();
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    // The greeting status arrives first; wait for it so later frames are in order.
    await socket.waitFor((f) => f.kind === 'json' && f.type === 'status');
    return socket;
  }

  /** Resolves with the first frame (from index `from`) matching; rejects after `timeoutMs`. */
  waitFor(predicate: (frame: Frame) => boolean, timeoutMs = 8000, from = 0): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.frames.slice(from).find(predicate);
        if (found) {
          cleanup();
          resolve(found);
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no matching frame within ${timeoutMs} ms; got: ${this.jsonTypes().join(', ')}`));
      }, timeoutMs);
      const listener = (): void => {
        check();
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
      };
      this.listeners.push(listener);
      check();
    });
  }

  /** Waits for the job's terminal event. */
  waitForEnd(promptId: string, timeoutMs = 8000): Promise<Frame> {
    return this.waitFor(
      (f) => f.kind === 'json' && ['execution_success', 'execution_error', 'execution_interrupted'].includes(f.type) && f.data.prompt_id === promptId,
      timeoutMs,
    );
  }

  /** Waits until the socket has been closed by the server. */
  waitClosed(timeoutMs = 8000): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed) return resolve();
      const timer = setTimeout(() => reject(new Error('socket still open')), timeoutMs);
      this.listeners.push(() => {
        if (this.closed) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  }

  send(value: unknown): void {
    this.ws.send(JSON.stringify(value));
  }

  jsonTypes(): string[] {
    return this.frames.map((f) => (f.kind === 'json' ? f.type : `binary${f.bytes.readUInt32BE(0)}`));
  }

  json(type: string): Array<Record<string, unknown>> {
    return this.frames.filter((f): f is Extract<Frame, { kind: 'json' }> => f.kind === 'json' && f.type === type).map((f) => f.data);
  }

  binaries(): Buffer[] {
    return this.frames.filter((f): f is Extract<Frame, { kind: 'binary' }> => f.kind === 'binary').map((f) => f.bytes);
  }
}

/** Polls /api/history/{id} until the entry appears (the job has finished). */
export async function waitForHistory(svc: DemoService, promptId: string, timeoutMs = 8000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(svc, `/api/history/${promptId}`);
    const body = (await res.json()) as Record<string, Record<string, unknown>>;
    if (body[promptId]) return body[promptId];
    if (Date.now() > deadline) throw new Error(`no history for ${promptId}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A recorded trace (copied from the shared recordings into tests/demo/traces, so a fresh clone has them). */
export function readTrace<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./traces/${name}`, import.meta.url), 'utf8')) as T;
}

/** The text frames of a .jsonl trace. */
export function readTraceLines(name: string): Array<{ type: string; data: Record<string, unknown> }> {
  return readFileSync(new URL(`./traces/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> });
}

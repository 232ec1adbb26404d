// A small real HTTP server on 127.0.0.1 (port 0) for the client's unit tests: each test installs
// handlers and reads back what the client sent. Used where exact control over one answer matters
// (a dropped connection after accepting a job, a retry count); the demo service covers the rest.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type Handler = (req: Seen, res: ServerResponse, raw: IncomingMessage) => unknown;

export class TestServer {
  readonly requests: Seen[] = [];
  #server: Server;
  #sockets = new Set<Socket>();
  #routes: Array<{ method: string; path: string | RegExp; handler: Handler }> = [];
  url = '';

  constructor() {
    this.#server = createServer((raw, res) => {
      const chunks: Buffer[] = [];
      raw.on('data', (c: Buffer) => chunks.push(c));
      raw.on('end', () => {
        const url = new URL(raw.url ?? '/', 'http://x');
        const seen: Seen = { method: raw.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: raw.headers, body: Buffer.concat(chunks) };
        this.requests.push(seen);
        const route = this.#routes.find((r) => r.method === seen.method && (typeof r.path === 'string' ? r.path === seen.path : r.path.test(seen.path)));
        if (!route) {
          res.writeHead(404).end();
          return;
        }
        Promise.resolve(route.handler(seen, res, raw)).catch((error: unknown) => {
          res.writeHead(599).end(String(error));
        });
      });
    });
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  on(method: string, path: string | RegExp, handler: Handler): this {
    this.#routes.unshift({ method, path, handler });
    return this;
  }

  json(method: string, path: string | RegExp, status: number, body: unknown): this {
    return this.on(method, path, (_req, res) => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    });
  }

  count(method: string, path: string): number {
    return this.requests.filter((r) => r.method === method && r.path === path).length;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Answers by destroying the connection (the client sees a network error). */
export function hangUp(_req: Seen, res: ServerResponse): void {
  res.socket?.destroy();
}

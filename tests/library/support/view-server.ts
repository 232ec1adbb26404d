// A scripted local-style server on 127.0.0.1 answering GET /api/view with whatever a test plans:
// the file, a body cut off midway (the connection killed), a body that stalls, 404 or 500.
// It serves any file name it is told, including names no real server should send.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ViewBehaviour = 'ok' | 'truncate' | 'stall' | 'not_found' | 'error500';

export interface ViewServer {
  readonly url: string;
  /** File names asked for, in order. */
  readonly requests: string[];
  setFile(filename: string, bytes: Uint8Array): void;
  /** The next answers for `filename`, in order; afterwards it is served normally. */
  plan(filename: string, behaviours: ViewBehaviour[]): void;
  /** Resolves when a stalled answer has started (its first half is sent). */
  stalled(): Promise<void>;
  close(): Promise<void>;
}

export async function startViewServer(): Promise<ViewServer> {
  const files = new Map<string, Buffer>();
  const plans = new Map<string, ViewBehaviour[]>();
  const requests: string[] = [];
  const open = new Set<ServerResponse>();
  let onStall: (() => void) | null = null;

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method !== 'GET' || (url.pathname !== '/api/view' && url.pathname !== '/view')) {
      res.writeHead(404).end();
      return;
    }
    const filename = url.searchParams.get('filename') ?? '';
    requests.push(filename);
    const behaviour = plans.get(filename)?.shift() ?? 'ok';
    const bytes = files.get(filename);
    if (behaviour === 'not_found' || !bytes) {
      res.writeHead(404, { 'Content-Length': '0' }).end();
      return;
    }
    if (behaviour === 'error500') {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end('boom');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes.length) });
    if (behaviour === 'ok') {
      res.end(bytes);
      return;
    }
    const half = bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2)));
    res.write(half, () => {
      if (behaviour === 'truncate') {
        res.socket?.destroy();
        return;
      }
      open.add(res);
      res.on('close', () => open.delete(res));
      onStall?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setFile(filename, bytes) {
      files.set(filename, Buffer.from(bytes));
    },
    plan(filename, behaviours) {
      plans.set(filename, [...(plans.get(filename) ?? []), ...behaviours]);
    },
    stalled() {
      return new Promise((resolve) => {
        onStall = () => {
          onStall = null;
          resolve();
        };
      });
    },
    close() {
      for (const res of open) res.destroy();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

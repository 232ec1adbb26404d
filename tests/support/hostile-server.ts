// Small hostile HTTP servers for the network-limit tests: endless bodies, black holes (accept the
// connection, never answer), drips, odd redirects. Every route is a plain node:http handler, and
// every endless writer stops at a safety ceiling so a test that fails cannot exhaust the machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface HostileServer {
  url: string;
  /** The event sockets (/ws) open now. */
  sockets: Set<WebSocket>;
  /** Paths asked for, in order ("GET /api/queue"). */
  requests: string[];
  close(): Promise<void>;
}

/** Starts a server; `routes` maps "METHOD /path" (no query), "/path" or "/prefix/*" to a handler; others get 404 `{}`. */
export async function startHostileServer(routes: Record<string, Route>, options: { eventSocket?: boolean } = {}): Promise<HostileServer> {
  const sockets = new Set<Socket>();
  const eventSockets = new Set<WebSocket>();
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(`${req.method} ${path}`);
    const route =
      routes[`${req.method} ${path}`] ?? routes[path] ?? Object.entries(routes).find(([key]) => key.endsWith('*') && path.startsWith(key.slice(0, -1)))?.[1];
    if (route) route(req, res);
    else res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
  });
  const wss = options.eventSocket ? new WebSocketServer({ noServer: true }) : null;
  server.on('upgrade', (req, socket, head) => {
    if (!wss) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      eventSockets.add(ws);
      ws.on('close', () => eventSockets.delete(ws));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sockets: eventSockets,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of eventSockets) ws.terminate();
        wss?.close();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/** Answers `status` with a body that never ends (stops at `ceilingBytes` or when the client leaves). */
export function endlessBody(status: number, contentType = 'application/json', ceilingBytes = 1024 * 1024 * 1024): Route {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    if (contentType === 'application/json') res.write('{"error":"');
    let sent = 0;
    const pump = (): void => {
      while (sent < ceilingBytes && !res.destroyed) {
        sent += CHUNK.length;
        if (!res.write(CHUNK)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    pump();
  };
}

/** Accepts the request and never answers (the socket stays open until the server closes). */
export const blackHole: Route = () => {};

/** Answers 200 and sends `bytesPerSecond` bytes a second, forever (until the client leaves). */
export function drip(bytesPerSecond: number, contentType = 'image/png'): Route {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    const timer = setInterval(() => {
      if (res.destroyed) clearInterval(timer);
      else res.write(Buffer.alloc(bytesPerSecond, 0x62));
    }, 1000);
    res.on('close', () => clearInterval(timer));
  };
}

/** Answers with JSON. */
export function json(status: number, body: unknown): Route {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
}

/** Answers a redirect to `location`. */
export function redirect(location: string, status = 302): Route {
  return (_req, res) => {
    res.writeHead(status, { location }).end();
  };
}

/** A local-server job that succeeds at once with one output, whose /api/view is `view`. */
export function finishedJobRoutes(view: Route, promptId = 'job-1'): Record<string, Route> {
  return {
    'POST /api/prompt': (req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const id = (JSON.parse(body) as { prompt_id?: string }).prompt_id ?? promptId;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ prompt_id: id, number: 1, node_errors: {} }));
      });
    },
    '/api/queue': json(200, { queue_running: [], queue_pending: [] }),
    '/api/history/*': (req, res) => {
      const id = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.split('/').pop() ?? '');
      const entry = {
        prompt: [1, id, {}, {}, ['9']],
        outputs: { '9': { images: [{ filename: 'out.png', subfolder: '', type: 'output' }] } },
        status: { status_str: 'success', completed: true, messages: [] },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ [id]: entry }));
    },
    '/api/view': view,
  };
}

/** The peak resident memory (VmHWM, bytes) of a child process, read from /proc until it exits. */
export function watchPeakRss(child: ChildProcess): () => number {
  let peak = 0;
  const read = (): void => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peak = Math.max(peak, kb * 1024);
    } catch {
      // gone
    }
  };
  const timer = setInterval(read, 50);
  child.once('exit', () => clearInterval(timer));
  return () => peak;
}

export interface MeasuredRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  peakRssBytes: number;
  /** Milliseconds from start to the first stderr text, or null. */
  firstStderrMs: number | null;
}

/** Runs `node <cli> args` and measures its duration and peak RSS; kills it after `killAfterMs`. */
export function runMeasured(cli: string, args: string[], env: NodeJS.ProcessEnv, killAfterMs: number): Promise<MeasuredRun> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [cli, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const peak = watchPeakRss(child);
    let stdout = '';
    let stderr = '';
    let firstStderrMs: number | null = null;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      if (firstStderrMs === null) firstStderrMs = Date.now() - started;
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started, peakRssBytes: peak(), firstStderrMs });
    });
  });
}

// The browser harness's server: serves the built renderer and carries the contract over a
// WebSocket, to one app core. Guarded like a local app server should be: it listens on 127.0.0.1
// only; the page and the socket need the random token; a request whose Host is not this server
// (DNS rebinding) or whose Origin is foreign gets 403; the token is compared in constant time.
// Static assets (the public build: scripts, styles) need no token; everything that reaches the
// core does. Library media (/media/file/<id>, /media/thumb/<id>) are loaded by <img> and <video>
// elements, which cannot carry the token: serving the page with the token sets an HttpOnly,
// SameSite=Strict cookie scoped to /media (named per port: cookies ignore ports), and /media
// requires it.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { READY_CALL } from '@shared/ipc/names';
import { decodeWire, encodeWire, type WireReply } from '@shared/ipc/wire';
import type { AppCore } from '@main/app/core';
import { contentSecurityPolicy, securityHeaders, staticContentType } from '@main/app/csp';
import { eventKey, type AppEvent } from '@main/app/event-hub';
import { ReadyGate } from '@main/app/ready-gate';
import { resolveStaticFile } from '@main/app/static-files';
import { HARNESS_MEDIA_BASE } from '@shared/library-media';
import { BRIDGE_PATH, SOCKET_PATH, bridgeScript } from './bridge-script';

export interface HarnessServerOptions {
  core: AppCore;
  rendererDir: string;
  /** 0 (default) for a free port. */
  port?: number;
  /** Random when absent. Letters, digits, - and _ only. */
  token?: string;
  log?: (line: string) => void;
}

export interface HarnessServer {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** How many WebSocket connections are open (tests). */
  connections(): number;
  close(): Promise<void>;
}

/** Uploads are at most 100 MB, which base64 makes about 134 MB. */
const MAX_MESSAGE_BYTES = 140 * 1024 * 1024;

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

function sameToken(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of one cookie in a Cookie header, or null. */
function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

export async function startHarnessServer(options: HarnessServerOptions): Promise<HarnessServer> {
  const token = options.token ?? newToken();
  if (!/^[A-Za-z0-9_-]{16,}$/.test(token)) throw new Error('The harness token must be at least 16 letters, digits, - or _.');
  const log = options.log ?? (() => undefined);
  const script = bridgeScript();
  let port = 0;
  // Its own secret, not the token: a cookie is sent by the browser, the token is in the address.
  const mediaSecret = newToken();
  const mediaCookie = (): string => `flowdeck_media_${port}`;

  const allowedHosts = (): Set<string> => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  /** The request's Host when it is this server, else null. */
  const ownHost = (req: IncomingMessage): string | null => {
    const host = (req.headers.host ?? '').toLowerCase();
    return allowedHosts().has(host) ? host : null;
  };
  /** Browsers send Origin on WebSocket and module requests: it must be this server. */
  const originAllowed = (req: IncomingMessage): boolean => {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    return [...allowedHosts()].some((h) => origin.toLowerCase() === `http://${h}`);
  };

  const refuse = (res: ServerResponse): void => {
    res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end('Forbidden');
  };

  const handleHttp = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const host = ownHost(req);
    if (!host || !originAllowed(req) || !isLoopback(req.socket.remoteAddress)) return refuse(res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' });
      res.end();
      return;
    }
    const url = new URL(req.url ?? '/', `http://${host}`);
    const csp = contentSecurityPolicy({ connectSrc: `ws://${host}` });
    const headers = { ...securityHeaders(csp), 'Cache-Control': 'no-store' };
    if (url.pathname === '/' || url.pathname === '/index.html') {
      if (!sameToken(url.searchParams.get('token'), token)) return refuse(res);
      const index = resolveStaticFile(options.rendererDir, '/index.html');
      if (!index) {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('The renderer is not built: run `npm run build` first.');
        return;
      }
      const html = await readFile(index, 'utf8');
      // The bridge must exist before the app's module scripts run: a classic script in <head>.
      const tag = `<script src="${BRIDGE_PATH}?token=${encodeURIComponent(token)}"></script>`;
      const body = /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (m) => `${m}\n    ${tag}`) : `${tag}\n${html}`;
      res.writeHead(200, {
        ...headers,
        'Content-Type': 'text/html; charset=utf-8',
        'Set-Cookie': `${mediaCookie()}=${mediaSecret}; HttpOnly; SameSite=Strict; Path=${HARNESS_MEDIA_BASE}`,
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    if (url.pathname.startsWith(`${HARNESS_MEDIA_BASE}/`)) {
      if (!sameToken(cookieValue(req.headers.cookie, mediaCookie()), mediaSecret)) return refuse(res);
      await serveMedia(req, res, url.pathname.slice(HARNESS_MEDIA_BASE.length));
      return;
    }
    if (url.pathname === BRIDGE_PATH) {
      if (!sameToken(url.searchParams.get('token'), token)) return refuse(res);
      res.writeHead(200, { ...headers, 'Content-Type': 'text/javascript; charset=utf-8' });
      res.end(req.method === 'HEAD' ? undefined : script);
      return;
    }
    const file = resolveStaticFile(options.rendererDir, url.pathname);
    if (!file) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Not found');
      return;
    }
    const bytes = await readFile(file);
    res.writeHead(200, { ...headers, 'Content-Type': staticContentType(file) });
    res.end(req.method === 'HEAD' ? undefined : bytes);
  };

  const serveMedia = async (req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> => {
    const range = req.headers.range ?? null;
    const answer = await options.core.serveMedia({ pathname, method: req.method ?? 'GET', range });
    res.writeHead(answer.status, answer.headers);
    if (!answer.body) {
      res.end();
      return;
    }
    // A seeking video aborts its request: pipeline then destroys the file stream (and closes the file).
    await pipeline(answer.body, res).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ERR_STREAM_PREMATURE_CLOSE') log(`harness media response failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  };

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const sockets = new Set<WebSocket>();

  const handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const host = ownHost(req);
    const url = new URL(req.url ?? '/', `http://${host ?? '127.0.0.1'}`);
    const ok =
      host !== null &&
      originAllowed(req) &&
      isLoopback(req.socket.remoteAddress) &&
      url.pathname === SOCKET_PATH &&
      sameToken(url.searchParams.get('token'), token);
    if (!ok) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serveConnection(ws));
  };

  const serveConnection = (ws: WebSocket): void => {
    sockets.add(ws);
    const send = (reply: WireReply): void => {
      if (ws.readyState === ws.OPEN) ws.send(encodeWire(reply));
    };
    // Like the IPC transport: events wait until this page has said it is ready.
    const gate = new ReadyGate<AppEvent>((event) => send({ kind: 'event', name: event.name, payload: event.payload }), eventKey);
    const offEvents = options.core.onEvent((event) => gate.push(event));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let message: unknown;
      try {
        message = decodeWire(data.toString());
      } catch {
        return;
      }
      if (typeof message !== 'object' || message === null) return;
      const m = message as { kind?: unknown; id?: unknown; name?: unknown; input?: unknown };
      // A one-way note (the preview acknowledgement): validated by the core, never answered.
      if (m.kind === 'note') return options.core.notify(m.name, m.input);
      if (m.kind !== 'call' || typeof m.id !== 'number' || !Number.isSafeInteger(m.id)) return;
      const id = m.id;
      void options.core.invoke(m.name, m.input).then((envelope) => {
        send({ kind: 'result', id, envelope });
        if (m.name === READY_CALL && envelope.ok) gate.markReady();
      });
    });
    ws.on('close', () => {
      sockets.delete(ws);
      offEvents();
    });
    ws.on('error', (error) => log(`harness socket error: ${error.message}`));
  };

  const server: Server = createServer((req, res) => {
    handleHttp(req, res).catch((error: unknown) => {
      log(`harness request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.on('upgrade', handleUpgrade);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    connections: () => sockets.size,
    async close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

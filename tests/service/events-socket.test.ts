// EventsSocket against a real ws server on 127.0.0.1: the handshake (URL, token only for the
// cloud, feature flags first), validated and decoded frames with drops counted, reconnects with
// backoff, a refused key reported as offline without a hot loop, silence and dead-peer detection.
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { EventsSocket, type EventsSocketOptions } from '@main/service/events-socket';
import type { ConnectionState, ServerEvent, ServerKind } from '@main/service/types';

const KEY = 'sk-socket-KEY/+= 9';

interface Harness {
  wss: WebSocketServer;
  url: string;
  connections: Array<{ ws: WebSocket; req: IncomingMessage; received: string[] }>;
}

const servers: WebSocketServer[] = [];
const sockets: EventsSocket[] = [];

afterEach(async () => {
  await Promise.all(sockets.splice(0).map((s) => s.dispose()));
  for (const wss of servers.splice(0)) {
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }
});

async function startServer(options: ConstructorParameters<typeof WebSocketServer>[0] = {}): Promise<Harness> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, ...options });
  servers.push(wss);
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const harness: Harness = { wss, url: `http://127.0.0.1:${(wss.address() as AddressInfo).port}`, connections: [] };
  wss.on('connection', (ws, req) => {
    const entry = { ws, req, received: [] as string[] };
    ws.on('message', (data) => entry.received.push(String(data)));
    harness.connections.push(entry);
  });
  return harness;
}

function socketFor(
  harness: Harness,
  kind: ServerKind,
  options: Partial<EventsSocketOptions> = {},
): { socket: EventsSocket; events: ServerEvent[]; states: ConnectionState[]; logs: string[] } {
  const events: ServerEvent[] = [];
  const states: ConnectionState[] = [];
  const logs: string[] = [];
  const socket = new EventsSocket(
    { kind, baseUrl: harness.url },
    { apiKey: () => KEY, backoff: { minMs: 20, maxMs: 100, random: () => 0.5 }, logger: (l) => logs.push(l), ...options },
  );
  sockets.push(socket);
  socket.onEvent((e) => events.push(e));
  socket.onStateChange((s) => states.push(s));
  return { socket, events, states, logs };
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

describe('EventsSocket', () => {
  it('local: clientId without token, feature flags first, frames validated and decoded, drops counted', async () => {
    const harness = await startServer();
    const { socket, events, logs } = socketFor(harness, 'local', { clientId: 'client-123' });
    socket.start();
    expect(socket.state).toBe('connecting');
    await waitFor(() => harness.connections.length === 1 && (harness.connections[0]?.received.length ?? 0) > 0, 'the first message');
    await waitFor(() => socket.state === 'connected', 'connected');
    const conn = harness.connections[0];
    if (!conn) throw new Error('no connection');
    const url = new URL(conn.req.url ?? '', 'http://x');
    expect(url.pathname).toBe('/ws');
    expect(url.searchParams.get('clientId')).toBe('client-123');
    expect(url.searchParams.has('token')).toBe(false);
    expect(JSON.parse(conn.received[0] ?? '')).toEqual({ type: 'feature_flags', data: { supports_preview_metadata: true } });

    const meta = Buffer.from(JSON.stringify({ node_id: '5', display_node_id: '5', prompt_id: 'p1', parent_node_id: null, real_node_id: '5' }));
    conn.ws.send(JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: 0 } }, sid: 'client-123' } }));
    conn.ws.send(Buffer.concat([u32(4), u32(meta.length), meta, Buffer.from([0xff, 0xd8, 0xff, 0xe0])]));
    conn.ws.send(Buffer.concat([u32(3), u32(1), Buffer.from('5step 1')]));
    conn.ws.send('{this is not json');
    conn.ws.send(JSON.stringify({ type: 'progress', data: { value: 'x' } }));
    conn.ws.send(Buffer.concat([u32(9), u32(0)])); // unknown binary type
    conn.ws.send(Buffer.from([0, 0])); // short
    conn.ws.send(JSON.stringify({ type: 'execution_success', data: { prompt_id: 'p1' } }));
    await waitFor(() => events.some((e) => e.type === 'execution_success'), 'the last event');

    expect(events.map((e) => e.type)).toEqual(['status', 'preview', 'progress_text', 'execution_success']);
    expect(events[1]).toMatchObject({ type: 'preview', frameType: 4, promptId: 'p1', nodeId: '5', mime: 'image/jpeg' });
    expect(events[2]).toEqual({ type: 'progress_text', nodeId: '5', text: 'step 1' });
    expect(socket.droppedFrames).toBe(4);
    expect(socket.dropReasons()).toEqual({ 'binary:unknown_type': 1, 'binary:short': 1, 'text:invalid_json': 1, 'text:bad_progress': 1 });
    expect(logs.join('\n')).not.toContain(KEY);
  });

  it('cloud: the key goes in token= and never into a log line', async () => {
    const harness = await startServer();
    const { socket, logs } = socketFor(harness, 'cloud');
    socket.start();
    await waitFor(() => socket.state === 'connected', 'connected');
    const url = new URL(harness.connections[0]?.req.url ?? '', 'http://x');
    expect(url.searchParams.get('token')).toBe(KEY);
    expect(url.searchParams.get('clientId')).toBe(socket.clientId);
    expect(socket.clientId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(logs.some((l) => l.includes('token=%5Bredacted%5D'))).toBe(true);
    expect(logs.join('\n')).not.toContain(KEY);
    expect(logs.join('\n')).not.toContain(encodeURIComponent(KEY));
  });

  it('reconnects after the server drops it, and the listener survives a throwing listener', async () => {
    const harness = await startServer();
    const { socket, states, events } = socketFor(harness, 'local');
    socket.onEvent(() => {
      throw new Error('listener bug');
    });
    socket.start();
    await waitFor(() => socket.state === 'connected', 'connected');
    harness.connections[0]?.ws.terminate();
    await waitFor(() => harness.connections.length === 2 && socket.state === 'connected', 'the reconnect');
    expect(states).toEqual(['connecting', 'connected', 'reconnecting', 'connected']);
    harness.connections[1]?.ws.send(JSON.stringify({ type: 'execution_start', data: { prompt_id: 'p' } }));
    await waitFor(() => events.length === 1, 'an event after the reconnect');
  });

  it('keeps retrying while the server is down, reads offline after repeated failures, recovers', async () => {
    const harness = await startServer();
    const port = (harness.wss.address() as AddressInfo).port;
    const { socket, states } = socketFor(harness, 'local', { offlineAfterFailures: 2 });
    socket.start();
    await waitFor(() => socket.state === 'connected', 'connected');
    await new Promise<void>((resolve) => {
      for (const c of harness.wss.clients) c.terminate();
      harness.wss.close(() => resolve());
    });
    await waitFor(() => socket.state === 'offline', 'offline');
    const again = new WebSocketServer({ host: '127.0.0.1', port });
    servers.push(again);
    await waitFor(() => socket.state === 'connected', 'connected again');
    expect(states.slice(0, 3)).toEqual(['connecting', 'connected', 'reconnecting']);
    expect(states.at(-2)).toBe('offline');
  });

  it('a 401 on the upgrade: offline with an unauthorized lastError, not retried in a hot loop', async () => {
    let attempts = 0;
    const harness = await startServer({
      verifyClient: (_info: unknown, done: (ok: boolean, code?: number) => void) => {
        attempts += 1;
        done(false, 401);
      },
    });
    const { socket, logs } = socketFor(harness, 'cloud', { backoff: { minMs: 10, maxMs: 20, refusedRetryMs: 60_000 } });
    socket.start();
    await waitFor(() => socket.state === 'offline', 'offline');
    expect(socket.lastError).toMatchObject({ kind: 'unauthorized', status: 401 });
    expect(socket.lastError?.message).not.toContain(KEY);
    await new Promise((r) => setTimeout(r, 300));
    expect(attempts).toBe(1);
    expect(logs.join('\n')).not.toContain(KEY);
  });

  it('cloud without a key: offline at once, no connection attempted', async () => {
    const harness = await startServer();
    const { socket } = socketFor(harness, 'cloud', { apiKey: () => null });
    socket.start();
    await waitFor(() => socket.state === 'offline', 'offline');
    expect(socket.lastError?.kind).toBe('unauthorized');
    expect(harness.connections).toHaveLength(0);
  });

  it('silence while a job is expected: marked silent, then reconnected', async () => {
    const harness = await startServer();
    const { socket, states } = socketFor(harness, 'local', { silenceTimeoutMs: 150 });
    socket.start();
    await waitFor(() => socket.state === 'connected', 'connected');
    socket.setExpectingActivity(true);
    await waitFor(() => states.includes('silent'), 'silent');
    await waitFor(() => harness.connections.length >= 2 && socket.state === 'connected', 'the reconnect after silence');
    expect(states.slice(0, 5)).toEqual(['connecting', 'connected', 'silent', 'reconnecting', 'connected']);
  });

  it('frames keep a busy connection from being called silent; no job expected, no silence', async () => {
    const harness = await startServer();
    const { socket, states } = socketFor(harness, 'local', { silenceTimeoutMs: 150 });
    socket.start();
    await waitFor(() => socket.state === 'connected', 'connected');
    const conn = harness.connections[0];
    socket.setExpectingActivity(true);
    const ticker = setInterval(() => conn?.ws.send(JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: 1 } } } })), 30);
    await new Promise((r) => setTimeout(r, 500));
    clearInterval(ticker);
    expect(states).not.toContain('silent');
    socket.setExpectingActivity(false);
    await new Promise((r) => setTimeout(r, 400));
    expect(states).not.toContain('silent');
    expect(harness.connections).toHaveLength(1);
  });

  it('a peer that stops answering pings is dropped and reconnected', async () => {
    const harness = await startServer({ autoPong: false });
    const { socket } = socketFor(harness, 'local', { pingIntervalMs: 50 });
    socket.start();
    await waitFor(() => harness.connections.length >= 2, 'a reconnect after unanswered pings');
  });

  it('dispose closes the socket and stops reconnecting', async () => {
    const harness = await startServer();
    const { socket, states } = socketFor(harness, 'local');
    socket.start();
    await waitFor(() => socket.state === 'connected', 'connected');
    await socket.dispose();
    expect(socket.state).toBe('closed');
    expect(states.at(-1)).toBe('closed');
    await new Promise((r) => setTimeout(r, 200));
    expect(harness.connections).toHaveLength(1);
    expect(() => socket.start()).toThrow();
  });
});

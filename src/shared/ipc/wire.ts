// The browser harness carries the contract as JSON text over a WebSocket. Electron's IPC copies
// Uint8Array (and bigint) by structured clone; JSON cannot, so this codec tags them:
//   Uint8Array -> {"$fd:bytes": "<base64>"},  bigint -> {"$fd:bigint": "<digits>"}
// and the other side restores them, so both transports deliver identical values.
//
// encodeWire, decodeWire and createSocketTransport are SELF-CONTAINED (globals only: btoa, atob,
// JSON, WebSocket passed in) because the harness serves their source text to the page.
import type { BridgeTransport } from './bridge';

/** Client -> host: a call, answered by a `result` with its id. */
interface WireCall {
  kind: 'call';
  id: number;
  name: string;
  input?: unknown;
}
/** Client -> host: a one-way note (BridgeTransport.notify): no id, never answered. */
interface WireNote {
  kind: 'note';
  name: string;
  input?: unknown;
}
/** Host -> client. */
export type WireReply = { kind: 'result'; id: number; envelope: unknown } | { kind: 'event'; name: string; payload: unknown };

export function encodeWire(value: unknown): string {
  return JSON.stringify(value, function replacer(this: unknown, _key: string, item: unknown): unknown {
    if (typeof item === 'bigint') return { '$fd:bigint': item.toString() };
    if (item instanceof Uint8Array) {
      // In Node (the harness host) Buffer encodes natively; a preview frame is ~45 KB of base64, and
      // the page's path below builds a JS array per 32 KiB, which cost the host ~1.6 ms a frame.
      const NodeBuffer = (globalThis as { Buffer?: { from(b: ArrayBufferLike, o: number, l: number): { toString(e: 'base64'): string } } }).Buffer;
      if (NodeBuffer) return { '$fd:bytes': NodeBuffer.from(item.buffer, item.byteOffset, item.byteLength).toString('base64') };
      let binary = '';
      const chunk = 0x8000;
      for (let i = 0; i < item.length; i += chunk) binary += String.fromCharCode.apply(null, Array.from(item.subarray(i, i + chunk)));
      return { '$fd:bytes': btoa(binary) };
    }
    return item;
  });
}

export function decodeWire(text: string): unknown {
  return JSON.parse(text, function reviver(_key: string, item: unknown): unknown {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
    const keys = Object.keys(item);
    if (keys.length !== 1) return item;
    const record = item as Record<string, unknown>;
    const bytes = record['$fd:bytes'];
    if (typeof bytes === 'string') {
      const binary = atob(bytes);
      const out = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i += 1) out[i] = binary.charCodeAt(i);
      return out;
    }
    const big = record['$fd:bigint'];
    if (typeof big === 'string' && /^-?\d+$/.test(big)) return BigInt(big);
    return item;
  });
}

/** The minimal WebSocket surface used (the browser's WebSocket, or `ws` in tests). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
}
export type WebSocketFactory = new (url: string) => WebSocketLike;

export interface SocketTransport extends BridgeTransport {
  close(): void;
}

/**
 * A BridgeTransport over the harness WebSocket: calls are matched to answers by id, notes carry no
 * id and get no answer; calls made while (re)connecting wait for the socket (notes are dropped);
 * calls in flight when it drops answer `network`; it reconnects with backoff and repeats
 * `renderer.ready` so events flow again.
 */
export function createSocketTransport(
  url: string,
  WebSocketImpl: WebSocketFactory,
  codec: { encode: (value: unknown) => string; decode: (text: string) => unknown },
  readyCall: string,
  /** Told when the link to the host drops (false) and when it is back (true), once per change. */
  onLink?: (up: boolean) => void,
): SocketTransport {
  const OPEN = 1;
  let linkUp = false;
  const setLink = (up: boolean): void => {
    if (up === linkUp) return;
    linkUp = up;
    if (onLink) onLink(up);
  };
  let socket: WebSocketLike | null = null;
  let closed = false;
  let nextId = 1;
  let attempt = 0;
  let readyAnnounced = false;
  let opened = false;
  const waiting: string[] = [];
  const pending = new Map<number, (envelope: unknown) => void>();
  const subscribers = new Map<string, Set<(payload: unknown) => void>>();
  const networkFailure = (message: string): unknown => ({ ok: false, error: { code: 'network', message } });

  const connect = (): void => {
    if (closed) return;
    const ws = new WebSocketImpl(url);
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      setLink(true);
      const reconnect = opened;
      opened = true;
      // Only on a reconnect: a ready call made before the first open is among those waiting below.
      if (readyAnnounced && reconnect) {
        // A reconnect: the host holds events for a connection until it says it is ready.
        const id = nextId++;
        pending.set(id, () => undefined);
        ws.send(codec.encode({ kind: 'call', id, name: readyCall } satisfies WireCall));
      }
      for (const message of waiting.splice(0)) ws.send(message);
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      let message: { kind?: unknown; id?: unknown; envelope?: unknown; name?: unknown; payload?: unknown };
      try {
        message = codec.decode(event.data) as typeof message;
      } catch {
        return;
      }
      if (message.kind === 'result' && typeof message.id === 'number') {
        const resolve = pending.get(message.id);
        pending.delete(message.id);
        resolve?.(message.envelope);
      } else if (message.kind === 'event' && typeof message.name === 'string') {
        for (const listener of Array.from(subscribers.get(message.name) ?? [])) listener(message.payload);
      }
    };
    ws.onerror = () => undefined;
    ws.onclose = () => {
      socket = null;
      if (!closed) setLink(false);
      for (const [id, resolve] of pending) {
        pending.delete(id);
        resolve(networkFailure('The connection to the app was lost; try again.'));
      }
      if (closed) return;
      attempt += 1;
      const delay = Math.min(5000, 200 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2);
      setTimeout(connect, delay);
    };
  };

  connect();

  return {
    invoke(name: string, input: unknown): Promise<unknown> {
      if (closed) return Promise.resolve(networkFailure('The connection to the app is closed.'));
      if (name === readyCall) readyAnnounced = true;
      const id = nextId++;
      const call: WireCall = input === undefined ? { kind: 'call', id, name } : { kind: 'call', id, name, input };
      const text = codec.encode(call);
      return new Promise((resolve) => {
        pending.set(id, resolve);
        if (socket && socket.readyState === OPEN) socket.send(text);
        else waiting.push(text);
      });
    },
    notify(name: string, input: unknown): void {
      // Only over an open socket: a note waits for no one, and a reconnect's ready call resets
      // whatever a dropped one was for (the core resends a job's waiting preview frame).
      if (closed || !socket || socket.readyState !== OPEN) return;
      const note: WireNote = input === undefined ? { kind: 'note', name } : { kind: 'note', name, input };
      socket.send(codec.encode(note));
    },
    subscribe(name: string, listener: (payload: unknown) => void): () => void {
      let set = subscribers.get(name);
      if (!set) {
        set = new Set();
        subscribers.set(name, set);
      }
      set.add(listener);
      return () => {
        subscribers.get(name)?.delete(listener);
      };
    },
    close(): void {
      closed = true;
      socket?.close();
    },
  };
}

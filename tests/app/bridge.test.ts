// The bridge that becomes window.flowdeck (on both transports) and the harness's wire codec.
import { describe, expect, it, vi } from 'vitest';
import { buildFlowdeckApi, type BridgeTransport } from '@shared/ipc/bridge';
import { CALL_NAMES, EVENT_NAMES, PREVIEW_ACK_NOTE, PREVIEW_EVENT } from '@shared/ipc/names';
import { createSocketTransport, decodeWire, encodeWire, type WebSocketFactory } from '@shared/ipc/wire';
import WebSocket, { WebSocketServer } from 'ws';
import { compareExact, fromExactNumber, toExactNumber } from '@shared/ipc/exact';

const names = { calls: CALL_NAMES, events: EVENT_NAMES, previewEvent: PREVIEW_EVENT, previewAck: PREVIEW_ACK_NOTE };

function fakeTransport() {
  const listeners = new Map<string, (payload: unknown) => void>();
  const calls: Array<{ name: string; input: unknown }> = [];
  const notes: Array<{ name: string; input: unknown }> = [];
  const transport: BridgeTransport = {
    invoke: async (name, input) => {
      calls.push({ name, input });
      return { ok: true, value: null };
    },
    notify: (name, input) => void notes.push({ name, input }),
    subscribe: (name, listener) => {
      listeners.set(name, listener);
      return () => listeners.delete(name);
    },
  };
  return { transport, calls, notes, emit: (name: string, payload: unknown) => listeners.get(name)?.(payload) };
}

describe('buildFlowdeckApi', () => {
  it('is frozen, refuses unknown calls and events, and wraps transport failures as envelopes', async () => {
    const { transport } = fakeTransport();
    const api = buildFlowdeckApi(transport, names);
    expect(Object.isFrozen(api)).toBe(true);
    const untyped = api.invoke as unknown as (name: string) => Promise<unknown>;
    expect(await untyped('nope')).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(() => api.on('nope' as never, () => undefined)).toThrow(TypeError);

    const broken = buildFlowdeckApi({ ...transport, invoke: async () => Promise.reject(new Error('pipe closed')) }, names);
    expect(await broken.invoke('profiles.list')).toEqual({ ok: false, error: { code: 'internal', message: expect.stringContaining('pipe closed') } });
    const odd = buildFlowdeckApi({ ...transport, invoke: async () => ({ weird: true }) }, names);
    expect(await odd.invoke('profiles.list')).toMatchObject({ ok: false, error: { code: 'internal' } });
  });

  it('delivers events to every listener until it unsubscribes', () => {
    const { transport, emit } = fakeTransport();
    const api = buildFlowdeckApi(transport, names);
    const a = vi.fn();
    const b = vi.fn();
    const offA = api.on('queue.changed', a);
    api.on('queue.changed', b);
    emit('queue.changed', { running: [], pending: [] });
    offA();
    offA();
    emit('queue.changed', { running: [], pending: [] });
    expect(a).toHaveBeenCalledTimes(1);
    expect(b).toHaveBeenCalledTimes(2);
  });

  it('acknowledges a preview with a one-way note only after the listeners have finished with it, even with no listener', async () => {
    const { transport, calls, notes, emit } = fakeTransport();
    const api = buildFlowdeckApi(transport, names);
    const frame = (seq: number) => ({ promptId: 'p', seq, bytes: new Uint8Array(), mime: 'image/png', nodeId: null });
    // No listener (or only synchronous ones): acknowledged at once, as a note; no call waits for an answer.
    emit('job.preview', frame(1));
    expect(notes).toEqual([{ name: 'preview.ack', input: { promptId: 'p', seq: 1 } }]);

    let release: () => void = () => undefined;
    const offSlow = api.on('job.preview', () => new Promise<void>((r) => (release = r)));
    emit('job.preview', frame(2));
    await new Promise((r) => setTimeout(r, 20));
    expect(notes).toHaveLength(1); // the slow listener still holds frame 2
    release();
    await vi.waitFor(() => expect(notes[1]).toEqual({ name: 'preview.ack', input: { promptId: 'p', seq: 2 } }));
    offSlow();

    // Two slow listeners: the note waits for both; one failing still releases the frame.
    let releaseA: () => void = () => undefined;
    let failB: () => void = () => undefined;
    api.on('job.preview', () => new Promise<void>((r) => (releaseA = r)));
    api.on('job.preview', () => new Promise<void>((_, reject) => (failB = () => reject(new Error('decode failed')))));
    emit('job.preview', frame(3));
    failB();
    await new Promise((r) => setTimeout(r, 20));
    expect(notes).toHaveLength(2);
    releaseA();
    await vi.waitFor(() => expect(notes[2]).toEqual({ name: 'preview.ack', input: { promptId: 'p', seq: 3 } }));
    expect(calls).toEqual([]);
  });

  it('works from its own source text, as the harness serves it', async () => {
    const { transport, calls } = fakeTransport();
    const rebuilt = new Function(`return (${buildFlowdeckApi.toString()});`)() as typeof buildFlowdeckApi;
    const api = rebuilt(transport, names);
    expect(await api.invoke('profiles.list')).toEqual({ ok: true, value: null });
    expect(calls).toEqual([{ name: 'profiles.list', input: undefined }]);
  });
});

describe('wire codec', () => {
  it('round-trips bytes and bigints exactly, also from its source text', () => {
    const value = { bytes: new Uint8Array([0, 1, 254, 255]), big: 18446744073709551615n, nested: [{ x: new Uint8Array(70000).fill(7) }], s: '$fd:bytes' };
    const decoded = decodeWire(encodeWire(value)) as typeof value;
    expect(decoded.bytes).toEqual(value.bytes);
    expect(decoded.big).toBe(18446744073709551615n);
    expect(decoded.nested[0]!.x).toEqual(value.nested[0]!.x);
    expect(decoded.s).toBe('$fd:bytes');
    const encode = new Function(`return (${encodeWire.toString()});`)() as typeof encodeWire;
    const decode = new Function(`return (${decodeWire.toString()});`)() as typeof decodeWire;
    expect(decode(encode(value))).toEqual(decoded);
  });

  it("encodes bytes to the same text with Node's Buffer and with the page's path (no Buffer)", () => {
    // A view into a larger buffer, as a preview frame sliced from a socket message is.
    const backing = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 31) & 0xff);
    const value = { bytes: backing.subarray(123, 90_123) };
    const withBuffer = encodeWire(value);
    const saved = globalThis.Buffer;
    let withoutBuffer: string;
    try {
      (globalThis as { Buffer?: unknown }).Buffer = undefined;
      withoutBuffer = encodeWire(value);
    } finally {
      globalThis.Buffer = saved;
    }
    expect(withBuffer).toBe(withoutBuffer);
    expect((decodeWire(withBuffer) as typeof value).bytes).toEqual(value.bytes);
  });
});

describe('socket transport', () => {
  it('sends a note as one message with no id that waits for no answer, and drops it while the link is down', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => server.once('listening', () => r()));
    const received: unknown[] = [];
    const connections: WebSocket[] = [];
    server.on(
      'connection',
      (ws) =>
        connections.push(ws) &&
        ws.on('message', (data) => {
          const message = decodeWire(String(data)) as { kind: string; id?: number };
          received.push(message);
          // Only calls are answered, as the harness host does.
          if (message.kind === 'call') ws.send(encodeWire({ kind: 'result', id: message.id, envelope: { ok: true, value: null } }));
        }),
    );
    const port = (server.address() as { port: number }).port;
    // The page's copy: built from the function's source text, as the harness serves it.
    const create = new Function(`return (${createSocketTransport.toString()});`)() as typeof createSocketTransport;
    const links: boolean[] = [];
    const transport = create(
      `ws://127.0.0.1:${port}`,
      WebSocket as unknown as WebSocketFactory,
      { encode: encodeWire, decode: decodeWire },
      'renderer.ready',
      (up) => links.push(up),
    );
    try {
      transport.notify('preview.ack', { promptId: 'p', seq: 1 }); // not connected yet: dropped
      expect(await transport.invoke('renderer.ready', undefined)).toEqual({ ok: true, value: null });
      transport.notify('preview.ack', { promptId: 'p', seq: 2 });
      expect(await transport.invoke('profiles.list', undefined)).toEqual({ ok: true, value: null });
      expect(received).toEqual([
        { kind: 'call', id: 1, name: 'renderer.ready' },
        { kind: 'note', name: 'preview.ack', input: { promptId: 'p', seq: 2 } },
        { kind: 'call', id: 2, name: 'profiles.list' },
      ]);

      // The link drops: a note meanwhile is dropped; the reconnect says ready again (once).
      connections[0]!.terminate();
      await vi.waitFor(() => expect(links).toEqual([true, false]));
      transport.notify('preview.ack', { promptId: 'p', seq: 3 });
      await vi.waitFor(() => expect(links).toEqual([true, false, true]), { timeout: 5000 });
      await vi.waitFor(() => expect(received).toHaveLength(4));
      transport.notify('preview.ack', { promptId: 'p', seq: 4 });
      await vi.waitFor(() => expect(received).toHaveLength(5));
      expect(received.slice(3)).toEqual([
        { kind: 'call', id: 3, name: 'renderer.ready' },
        { kind: 'note', name: 'preview.ack', input: { promptId: 'p', seq: 4 } },
      ]);
    } finally {
      transport.close();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('exact numbers', () => {
  it('keeps 2^64-1 exact and safe numbers plain', () => {
    expect(toExactNumber(18446744073709551615n)).toEqual({ bigint: '18446744073709551615' });
    expect(toExactNumber(42n)).toBe(42);
    expect(fromExactNumber({ bigint: '18446744073709551615' })).toBe(18446744073709551615n);
    expect(compareExact(18446744073709551615n, 2 ** 53)).toBe(1);
    expect(compareExact(0.5, 1n)).toBe(-1);
    expect(compareExact(3, 3n)).toBe(0);
  });
});

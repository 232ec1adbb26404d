// The bridge that becomes window.flowdeck (on both transports) and the harness's wire codec.
import { describe, expect, it, vi } from 'vitest';
import { buildFlowdeckApi, type BridgeTransport } from '@shared/ipc/bridge';
import { CALL_NAMES, EVENT_NAMES, PREVIEW_ACK_CALL, PREVIEW_EVENT } from '@shared/ipc/names';
import { decodeWire, encodeWire } from '@shared/ipc/wire';
import { compareExact, fromExactNumber, toExactNumber } from '@shared/ipc/exact';

const names = { calls: CALL_NAMES, events: EVENT_NAMES, previewEvent: PREVIEW_EVENT, previewAck: PREVIEW_ACK_CALL };

function fakeTransport() {
  const listeners = new Map<string, (payload: unknown) => void>();
  const calls: Array<{ name: string; input: unknown }> = [];
  const transport: BridgeTransport = {
    invoke: async (name, input) => {
      calls.push({ name, input });
      return { ok: true, value: null };
    },
    subscribe: (name, listener) => {
      listeners.set(name, listener);
      return () => listeners.delete(name);
    },
  };
  return { transport, calls, emit: (name: string, payload: unknown) => listeners.get(name)?.(payload) };
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

  it('acknowledges a preview only after the listeners have finished with it, even with no listener', async () => {
    const { transport, calls, emit } = fakeTransport();
    const api = buildFlowdeckApi(transport, names);
    emit('job.preview', { promptId: 'p', seq: 1, bytes: new Uint8Array(), mime: 'image/png', nodeId: null });
    await vi.waitFor(() => expect(calls).toEqual([{ name: 'preview.ack', input: { promptId: 'p', seq: 1 } }]));

    let release: () => void = () => undefined;
    api.on('job.preview', () => new Promise<void>((r) => (release = r)));
    emit('job.preview', { promptId: 'p', seq: 2, bytes: new Uint8Array(), mime: 'image/png', nodeId: null });
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toHaveLength(1); // the slow listener still holds frame 2
    release();
    await vi.waitFor(() => expect(calls[1]).toEqual({ name: 'preview.ack', input: { promptId: 'p', seq: 2 } }));
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

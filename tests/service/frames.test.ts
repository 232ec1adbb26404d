// The binary frame decoder: hand-made vectors for every layout and failure, then the real frame
// heads recorded from a local server (traces/previews.json), rebuilt into whole frames.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeBinaryFrame, isDroppedFrame, sniffImageMime } from '@main/service/frames';

const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]);
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, false);
  return b;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

function type4(meta: unknown, image: Uint8Array): Uint8Array {
  const m = utf8(JSON.stringify(meta));
  return concat(u32(4), u32(m.length), m, image);
}

describe('decodeBinaryFrame: hand-made vectors', () => {
  it('type 1 JPEG: format word 1, bytes are a view into the frame', () => {
    const frame = concat(u32(1), u32(1), JPEG);
    const out = decodeBinaryFrame(frame);
    expect(out).toMatchObject({ type: 'preview', frameType: 1, mime: 'image/jpeg', promptId: null, nodeId: null });
    if (out.type !== 'preview') throw new Error('expected a preview');
    expect(Array.from(out.bytes)).toEqual(Array.from(JPEG));
    expect(out.bytes.buffer).toBe(frame.buffer); // no copy
    expect(out.bytes.byteOffset).toBe(8);
  });

  it('type 1 PNG: format word 2', () => {
    const out = decodeBinaryFrame(concat(u32(1), u32(2), PNG));
    expect(out).toMatchObject({ type: 'preview', frameType: 1, mime: 'image/png' });
  });

  it('type 1 trusts the image magic over a wrong format word', () => {
    expect(decodeBinaryFrame(concat(u32(1), u32(1), PNG))).toMatchObject({ mime: 'image/png' });
    expect(decodeBinaryFrame(concat(u32(1), u32(7), JPEG))).toMatchObject({ mime: 'image/jpeg' });
  });

  it('type 1 with a non-image payload is dropped', () => {
    expect(decodeBinaryFrame(concat(u32(1), u32(1), utf8('hello world')))).toEqual({ type: 'dropped', reason: 'not_image', frameType: 1, length: 19 });
    expect(decodeBinaryFrame(concat(u32(1), u32(1)))).toMatchObject({ type: 'dropped', reason: 'not_image' });
  });

  it('type 3: node id and UTF-8 text', () => {
    const id = utf8('12:7');
    const out = decodeBinaryFrame(concat(u32(3), u32(id.length), id, utf8('étape 1 ✓')));
    expect(out).toEqual({ type: 'progress_text', nodeId: '12:7', text: 'étape 1 ✓' });
  });

  it('type 3 with empty text and empty node id', () => {
    expect(decodeBinaryFrame(concat(u32(3), u32(0)))).toEqual({ type: 'progress_text', nodeId: '', text: '' });
  });

  it('type 4 with image_type', () => {
    const meta = { node_id: '5', display_node_id: '6', real_node_id: '5', prompt_id: 'p-1', parent_node_id: null, image_type: 'image/png' };
    const frame = type4(meta, PNG);
    const out = decodeBinaryFrame(frame);
    expect(out).toMatchObject({ type: 'preview', frameType: 4, promptId: 'p-1', nodeId: '5', displayNodeId: '6', mime: 'image/png' });
    if (out.type !== 'preview') throw new Error('expected a preview');
    expect(out.bytes.buffer).toBe(frame.buffer);
    expect(out.bytes.length).toBe(PNG.length);
  });

  it('type 4 without image_type (cloud) sniffs the magic bytes', () => {
    const meta = { node_id: '5', display_node_id: '5', real_node_id: '5', prompt_id: 'p-2', parent_node_id: null };
    expect(decodeBinaryFrame(type4(meta, JPEG))).toMatchObject({ frameType: 4, mime: 'image/jpeg', promptId: 'p-2' });
    expect(decodeBinaryFrame(type4(meta, PNG))).toMatchObject({ frameType: 4, mime: 'image/png' });
  });

  it('type 4 whose image_type disagrees with the bytes follows the bytes', () => {
    expect(decodeBinaryFrame(type4({ node_id: '1', prompt_id: 'p', image_type: 'image/jpeg' }, PNG))).toMatchObject({ mime: 'image/png' });
  });

  it('type 4 with ids missing or of odd types gives nulls, not a crash', () => {
    expect(decodeBinaryFrame(type4({ node_id: 7, prompt_id: { x: 1 } }, JPEG))).toMatchObject({ nodeId: '7', promptId: null, displayNodeId: null });
  });

  it('type 4 with invalid metadata JSON, or JSON that is not an object, is dropped', () => {
    const bad = utf8('{"node_id": ');
    expect(decodeBinaryFrame(concat(u32(4), u32(bad.length), bad, JPEG))).toMatchObject({ type: 'dropped', reason: 'bad_metadata', frameType: 4 });
    const arr = utf8('[1,2]');
    expect(decodeBinaryFrame(concat(u32(4), u32(arr.length), arr, JPEG))).toMatchObject({ reason: 'bad_metadata' });
    const nul = utf8('null');
    expect(decodeBinaryFrame(concat(u32(4), u32(nul.length), nul, JPEG))).toMatchObject({ reason: 'bad_metadata' });
  });

  it('type 4 with a non-image payload is dropped', () => {
    expect(decodeBinaryFrame(type4({ node_id: '1' }, utf8('GIF89a....')))).toMatchObject({ type: 'dropped', reason: 'not_image' });
  });

  it('short frames are dropped', () => {
    expect(decodeBinaryFrame(new Uint8Array(0))).toEqual({ type: 'dropped', reason: 'short', frameType: null, length: 0 });
    expect(decodeBinaryFrame(Uint8Array.from([0, 0, 1]))).toMatchObject({ reason: 'short', frameType: null });
    for (const t of [1, 3, 4]) {
      expect(decodeBinaryFrame(concat(u32(t), Uint8Array.from([0, 0])))).toMatchObject({ type: 'dropped', reason: 'short', frameType: t, length: 6 });
    }
  });

  it('a length field that overruns the frame is dropped (types 3 and 4)', () => {
    expect(decodeBinaryFrame(concat(u32(3), u32(5), utf8('abc')))).toMatchObject({ type: 'dropped', reason: 'overrun', frameType: 3 });
    expect(decodeBinaryFrame(concat(u32(4), u32(1000), utf8('{}'), JPEG))).toMatchObject({ type: 'dropped', reason: 'overrun', frameType: 4 });
    // 0xFFFFFFFF must read as a huge unsigned length, not -1.
    expect(decodeBinaryFrame(concat(u32(4), u32(0xffffffff), JPEG))).toMatchObject({ reason: 'overrun' });
    expect(decodeBinaryFrame(concat(u32(3), u32(0x80000000), utf8('x')))).toMatchObject({ reason: 'overrun' });
  });

  it('unknown types (0, 2, 5, huge) are dropped', () => {
    for (const t of [0, 2, 5, 0xffffffff]) {
      expect(decodeBinaryFrame(concat(u32(t), u32(1), JPEG))).toEqual({ type: 'dropped', reason: 'unknown_type', frameType: t, length: 8 + JPEG.length });
    }
  });

  it('works on a view with a non-zero byteOffset (a Buffer slice)', () => {
    const big = Buffer.concat([Buffer.from('garbage!'), Buffer.from(concat(u32(1), u32(2), PNG))]);
    const view = big.subarray(8);
    expect(decodeBinaryFrame(view)).toMatchObject({ type: 'preview', mime: 'image/png' });
  });

  it('never throws on random input', () => {
    let seed = 42;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let i = 0; i < 2000; i += 1) {
      const len = rand() % 40;
      const bytes = new Uint8Array(len);
      for (let j = 0; j < len; j += 1) bytes[j] = rand() & 0xff;
      if (len >= 4) bytes[3] = [1, 3, 4][i % 3] ?? 1;
      if (len >= 4) bytes[0] = bytes[1] = bytes[2] = 0;
      expect(() => decodeBinaryFrame(bytes)).not.toThrow();
    }
  });

  it('sniffImageMime', () => {
    expect(sniffImageMime(JPEG)).toBe('image/jpeg');
    expect(sniffImageMime(PNG)).toBe('image/png');
    expect(sniffImageMime(Uint8Array.from([0xff, 0xd8]))).toBeNull();
    expect(sniffImageMime(utf8('RIFF....WEBP'))).toBeNull();
  });
});

// ---------------------------------------------------------------- recorded frames

interface BinaryRecord {
  kind: 'binary';
  len: number;
  head_hex: string;
  event_type: number;
  metadata_len?: number;
  metadata?: Record<string, unknown>;
  image_magic_hex?: string;
  image_len?: number;
  node_id?: string;
  text?: string;
}

const previews = JSON.parse(readFileSync(new URL('../demo/traces/previews.json', import.meta.url), 'utf8')) as Record<string, unknown>;

function binaryRecords(key: string): BinaryRecord[] {
  const list = previews[key] as Array<{ kind: string }>;
  return list.filter((r): r is BinaryRecord => r.kind === 'binary');
}

/** Python's json.dumps default separators, as the server wrote the metadata. */
function pythonJson(meta: Record<string, unknown>): string {
  return `{${Object.entries(meta)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(', ')}}`;
}

/** Rebuilds a whole frame from its recorded head: the head, then the rest of the frame. */
function rebuild(record: BinaryRecord): Uint8Array {
  const head = Buffer.from(record.head_hex, 'hex');
  const frame = new Uint8Array(record.len);
  if (record.event_type === 4 && record.metadata) {
    const meta = utf8(pythonJson(record.metadata));
    expect(meta.length).toBe(record.metadata_len);
    frame.set(u32(4), 0);
    frame.set(u32(meta.length), 4);
    frame.set(meta, 8);
    frame.set(Buffer.from(record.image_magic_hex ?? '', 'hex'), 8 + meta.length);
    // The rebuilt frame must agree with the recorded bytes as far as they go.
    expect(Buffer.from(frame.subarray(0, head.length)).toString('hex')).toBe(record.head_hex);
  } else {
    frame.set(head, 0);
  }
  return frame;
}

describe('decodeBinaryFrame: frames recorded from a local server', () => {
  const withFlags = binaryRecords('with_flags_ws');
  const noFlags = binaryRecords('no_flags_ws');

  it('the trace has type 4, type 1 and type 3 frames', () => {
    expect(withFlags.filter((r) => r.event_type === 4).length).toBeGreaterThan(0);
    expect(noFlags.filter((r) => r.event_type === 1).length).toBeGreaterThan(0);
    expect([...withFlags, ...noFlags].filter((r) => r.event_type === 3).length).toBeGreaterThan(0);
  });

  it('type 4 frames (after feature flags): ids from the metadata, JPEG image of the recorded length', () => {
    for (const record of withFlags.filter((r) => r.event_type === 4)) {
      const out = decodeBinaryFrame(rebuild(record));
      expect(out).toMatchObject({
        type: 'preview',
        frameType: 4,
        promptId: record.metadata?.prompt_id,
        nodeId: record.metadata?.node_id,
        displayNodeId: record.metadata?.display_node_id,
        mime: 'image/jpeg',
      });
      if (out.type !== 'preview') throw new Error('expected a preview');
      expect(out.bytes.length).toBe(record.image_len);
      expect(Buffer.from(out.bytes.subarray(0, 4)).toString('hex')).toBe(record.image_magic_hex);
    }
  });

  it('type 1 frames (no feature flags): JPEG, length = frame - 8', () => {
    for (const record of noFlags.filter((r) => r.event_type === 1)) {
      const out = decodeBinaryFrame(rebuild(record));
      expect(out).toMatchObject({ type: 'preview', frameType: 1, mime: 'image/jpeg', promptId: null });
      if (out.type !== 'preview') throw new Error('expected a preview');
      expect(out.bytes.length).toBe(record.len - 8);
    }
  });

  it('type 3 frames: node id and text', () => {
    for (const record of [...withFlags, ...noFlags].filter((r) => r.event_type === 3)) {
      const frame = rebuild(record);
      const out = decodeBinaryFrame(frame);
      expect(isDroppedFrame(out)).toBe(false);
      expect(out).toEqual({ type: 'progress_text', nodeId: record.node_id, text: record.text });
    }
  });

  it('a recorded frame cut short or with its length field corrupted is dropped', () => {
    const record = withFlags.find((r) => r.event_type === 4);
    if (!record) throw new Error('no type 4 frame in the trace');
    const frame = rebuild(record);
    expect(decodeBinaryFrame(frame.subarray(0, 100))).toMatchObject({ type: 'dropped', reason: 'overrun' });
    const corrupted = frame.slice();
    corrupted.set(u32(record.len), 4);
    expect(decodeBinaryFrame(corrupted)).toMatchObject({ type: 'dropped', reason: 'overrun' });
  });
});

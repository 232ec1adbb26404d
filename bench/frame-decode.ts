// Binary frame decode throughput, side by side with a plain copy of the same bytes (the cheapest
// thing a decoder that copied its payload could do), for 512x512-sized JPEG previews.
import { decodeBinaryFrame, isDroppedFrame } from '@main/service/frames';

const IMAGE_BYTES = 48 * 1024; // a typical 512x512 JPEG preview
const FRAMES = 2000;
const ROUNDS = 5;

function jpegPayload(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set([0xff, 0xd8, 0xff, 0xe0]);
  for (let i = 4; i < size; i += 1) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

function frameType1(image: Uint8Array): Uint8Array {
  const frame = new Uint8Array(8 + image.length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, 1);
  view.setUint32(4, 1);
  frame.set(image, 8);
  return frame;
}

function frameType4(image: Uint8Array, promptId: string): Uint8Array {
  const meta = new TextEncoder().encode(
    JSON.stringify({ node_id: '3', display_node_id: '3', real_node_id: '3', prompt_id: promptId, parent_node_id: null, image_type: 'image/jpeg' }),
  );
  const frame = new Uint8Array(8 + meta.length + image.length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, 4);
  view.setUint32(4, meta.length);
  frame.set(meta, 8);
  frame.set(image, 8 + meta.length);
  return frame;
}

function measure(label: string, frames: Uint8Array[], work: (f: Uint8Array) => number): number {
  let best = Infinity;
  let sink = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = process.hrtime.bigint();
    for (const f of frames) sink += work(f);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    best = Math.min(best, seconds);
  }
  const bytes = frames.reduce((n, f) => n + f.length, 0);
  const gbps = bytes / best / 1e9;
  console.log(`  ${label.padEnd(34)} ${gbps.toFixed(2).padStart(8)} GB/s  (${(frames.length / best).toFixed(0)} frames/s)${sink === -1 ? '' : ''}`);
  return gbps;
}

export function runFrameDecodeBench(): { type1: number; type4: number; copy: number } {
  const images = Array.from({ length: 8 }, (_, i) => jpegPayload(IMAGE_BYTES, i));
  const t1 = Array.from({ length: FRAMES }, (_, i) => frameType1(images[i % images.length]!));
  const t4 = Array.from({ length: FRAMES }, (_, i) => frameType4(images[i % images.length]!, '187c3e3b-1453-485c-b3ad-df42b0474858'));
  console.log(`frame decode: ${FRAMES} frames of ${IMAGE_BYTES / 1024} KiB, best of ${ROUNDS}`);
  const decode = (f: Uint8Array): number => {
    const d = decodeBinaryFrame(f);
    if (isDroppedFrame(d)) throw new Error(`bench frame dropped: ${d.reason}`);
    return d.type === 'preview' ? d.bytes.length : 0;
  };
  const type1 = measure('decode type 1 (PREVIEW_IMAGE)', t1, decode);
  const type4 = measure('decode type 4 (with metadata)', t4, decode);
  const copy = measure('baseline: copy the frame once', t4, (f) => f.slice().length);
  console.log(`  ratio decode type 4 / copy: ${(type4 / copy).toFixed(1)}x (target: decode >= 1 GB/s)`);
  return { type1, type4, copy };
}

if (import.meta.url === `file://${process.argv[1]}`) runFrameDecodeBench();

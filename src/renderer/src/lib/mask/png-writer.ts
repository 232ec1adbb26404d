// A minimal PNG writer for the mask: 8-bit RGBA, no interlace, filter None, produced in bands of
// rows straight from the coverage buffer and deflated by fflate's streaming zlib. fast-png's encoder
// (used for decoding) copies every byte through a growing buffer and needs the whole RGBA image in
// memory first: for a 4096x4096 mask that is 64 MiB plus as much again, and more time
// (bench/mask-painter.ts prints both). Here the peak is one band (about 1 MiB) plus the output.
import { Zlib } from 'fflate';

const SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let crcTable: Uint32Array | null = null;

function crc32(parts: Uint8Array[]): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n += 1) {
      let c = n;
      for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const part of parts) for (let i = 0; i < part.length; i += 1) crc = crcTable[(crc ^ part[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function u32(value: number): Uint8Array {
  return new Uint8Array([(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]);
}

/** One chunk: length, type, data, CRC over type and data. */
function chunk(type: string, data: Uint8Array): Uint8Array[] {
  const name = new Uint8Array([...type].map((c) => c.charCodeAt(0)));
  return [u32(data.length), name, data, u32(crc32([name, data]))];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export type ZlibLevel = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

/**
 * Writes an RGBA PNG whose rows `fillRow(y, row)` fills (row: width * 4 bytes; every byte must be
 * written except the RGB a fresh, zeroed band already holds). A generator: it yields after each band of rows (about 1 MiB of image data), so a caller
 * can spread a large export over several tasks and keep the page responsive; see below.
 */
export function* rgbaPngSteps(width: number, height: number, fillRow: (y: number, row: Uint8Array) => void, level: ZlibLevel): Generator<void, Uint8Array, void> {
  const header = new Uint8Array(13);
  header.set(u32(width), 0);
  header.set(u32(height), 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type RGBA
  header[10] = 0; // deflate
  header[11] = 0; // adaptive filtering (each row says None)
  header[12] = 0; // no interlace

  const compressed: Uint8Array[] = [];
  const zlib = new Zlib({ level }, (data) => void compressed.push(data));
  const stride = width * 4 + 1;
  const bandRows = Math.max(1, Math.min(height, Math.floor((1 << 20) / stride)));
  for (let y0 = 0; y0 < height; y0 += bandRows) {
    const rows = Math.min(bandRows, height - y0);
    // A fresh band each time: fflate may keep a reference to what it is given.
    const band = new Uint8Array(rows * stride);
    for (let r = 0; r < rows; r += 1) fillRow(y0 + r, band.subarray(r * stride + 1, (r + 1) * stride)); // filter byte 0: None
    zlib.push(band, y0 + rows >= height);
    yield;
  }
  const idat = concat(compressed);
  return concat([SIGNATURE, ...chunk('IHDR', header), ...chunk('IDAT', idat), ...chunk('IEND', new Uint8Array(0))]);
}

/** Runs the steps to the end at once. */
export function runSteps<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Runs the steps, giving the event loop a turn whenever about `sliceMs` have passed. */
export async function runStepsAsync<T>(steps: Generator<void, T, void>, sliceMs = 24): Promise<T> {
  let sliceStart = Date.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (Date.now() - sliceStart >= sliceMs) {
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      sliceStart = Date.now();
    }
  }
}

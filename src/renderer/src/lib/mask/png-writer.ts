// A minimal PNG writer for the mask: 8-bit RGBA, no interlace, filter None, rows produced straight
// from the coverage buffer by `fillRow`. Two ways to deflate:
// - sync: fflate's one-shot zlibSync over all rows (fast-png's encoder does the same but copies
//   every byte through a growing buffer first; bench/mask-painter.ts compares them);
// - async: the platform's CompressionStream('deflate') (native zlib in Chromium, Electron and
//   Node), fed band by band, so the page stays responsive and only one band of raw rows exists at a
//   time. fflate's streaming Deflate is NOT used: on some inputs it emits back-references beyond
//   the data (fflate issues #260 and #282, open for 0.8.3); tests/mask caught it on a mask at level 6.
import { zlibSync } from 'fflate';

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

/** Fills one row of RGBA pixels (width * 4 bytes, zeroed beforehand). */
export type FillRow = (y: number, row: Uint8Array) => void;

/** The PNG around a zlib stream of filtered rows. */
function pngFile(width: number, height: number, idat: Uint8Array): Uint8Array {
  const header = new Uint8Array(13);
  header.set(u32(width), 0);
  header.set(u32(height), 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type RGBA
  header[10] = 0; // deflate
  header[11] = 0; // adaptive filtering (each row says None)
  header[12] = 0; // no interlace
  return concat([SIGNATURE, ...chunk('IHDR', header), ...chunk('IDAT', idat), ...chunk('IEND', new Uint8Array(0))]);
}

/** Rows y0..y0+rows as PNG scanlines: a filter byte (0, None) then the row. */
function scanlines(width: number, y0: number, rows: number, fillRow: FillRow): Uint8Array {
  const stride = width * 4 + 1;
  const out = new Uint8Array(rows * stride);
  for (let r = 0; r < rows; r += 1) fillRow(y0 + r, out.subarray(r * stride + 1, (r + 1) * stride));
  return out;
}

/** The whole PNG at once (all raw rows in memory while deflating). */
export function writeRgbaPng(width: number, height: number, fillRow: FillRow, level: ZlibLevel): Uint8Array {
  return pngFile(width, height, zlibSync(scanlines(width, 0, height, fillRow), { level }));
}

interface ByteWriter {
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
}
interface ByteReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
}
interface DeflateStream {
  writable: { getWriter(): ByteWriter };
  readable: { getReader(): ByteReader };
}
type DeflateStreamConstructor = new (format: 'deflate') => DeflateStream;

/** The platform's CompressionStream, when there is one (Chromium, Electron, Node 18+). */
function platformDeflate(): DeflateStreamConstructor | null {
  const candidate = (globalThis as { CompressionStream?: unknown }).CompressionStream;
  return typeof candidate === 'function' ? (candidate as DeflateStreamConstructor) : null;
}

/**
 * The same image, deflated natively in bands of about 1 MiB with the event loop free in between;
 * falls back to writeRgbaPng at zlib's default level where no CompressionStream exists.
 */
export async function writeRgbaPngAsync(width: number, height: number, fillRow: FillRow): Promise<Uint8Array> {
  const Deflate = platformDeflate();
  if (!Deflate) return writeRgbaPng(width, height, fillRow, 6);
  const stream = new Deflate('deflate');
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const compressed: Uint8Array[] = [];
  const collected = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value) compressed.push(value);
    }
  })();
  const bandRows = Math.max(1, Math.min(height, Math.floor((1 << 20) / (width * 4 + 1))));
  try {
    for (let y0 = 0; y0 < height; y0 += bandRows) await writer.write(scanlines(width, y0, Math.min(bandRows, height - y0), fillRow));
    await writer.close();
  } finally {
    await collected;
  }
  return pngFile(width, height, concat(compressed));
}

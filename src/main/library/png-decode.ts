// A PNG decoder for thumbnails, for the PNGs servers write (8-bit grey, grey + alpha, RGB or RGBA,
// not interlaced): node's zlib inflates, the row filters are undone in one pass into RGBA. pngjs
// decodes everything else (palettes, other depths, interlacing): it takes about twice as long on
// a 512x512 output (bench/PROFILE-issue25.md). Chunk CRCs are checked, as pngjs does: a damaged
// file is refused, never shown half-decoded.
import { crc32, inflateSync } from 'node:zlib';

export interface DecodedPng {
  width: number;
  height: number;
  data: Uint8Array;
}

const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 4: 2, 6: 4 };

function u32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

/** The image, or null when it is not a PNG this decoder takes (the caller falls back to pngjs). Throws on a damaged file. */
export function decodeSimplePng(bytes: Uint8Array): DecodedPng | null {
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Uint8Array[] = [];
  while (at + 12 <= bytes.length) {
    const length = u32(bytes, at);
    const end = at + 12 + length;
    if (end > bytes.length) throw new Error('PNG: a chunk runs past the end of the file.');
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
    if (crc32(bytes.subarray(at + 4, at + 8 + length)) !== u32(bytes, at + 8 + length)) throw new Error(`PNG: the ${type} chunk is damaged (CRC).`);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = u32(data, 0);
      height = u32(data, 4);
      channels = CHANNELS[data[9]!] ?? 0;
      // 8 bits per sample, a known colour type, deflate, filter method 0, no interlacing.
      if (data[8] !== 8 || channels === 0 || data[10] !== 0 || data[11] !== 0 || data[12] !== 0 || width === 0 || height === 0) return null;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at = end;
  }
  if (channels === 0 || idat.length === 0) return null;
  const stride = width * channels;
  const expected = height * (stride + 1);
  const raw = inflateSync(idat.length === 1 ? idat[0]! : Buffer.concat(idat), { maxOutputLength: expected });
  if (raw.length !== expected) throw new Error('PNG: the image data is shorter than its size says.');
  unfilter(raw, height, stride, channels);
  return { width, height, data: toRgba(raw, width, height, channels) };
}

/** Undoes each row's filter in place (the row's first byte says which); rows keep their filter byte. */
function unfilter(raw: Uint8Array, height: number, stride: number, bpp: number): void {
  for (let y = 0; y < height; y += 1) {
    const row = y * (stride + 1) + 1;
    const up = row - stride - 1;
    const filter = raw[row - 1]!;
    // One loop per filter: the branch is taken once per row, not once per byte. The first row has
    // no row above (b = c = 0): Up is then None, Average and Paeth reduce to shapes of Sub.
    if (filter === 0 || (filter === 2 && y === 0)) continue;
    if (filter === 1 || (filter === 4 && y === 0)) {
      for (let x = bpp; x < stride; x += 1) raw[row + x] = (raw[row + x]! + raw[row + x - bpp]!) & 0xff;
    } else if (filter === 2) {
      for (let x = 0; x < stride; x += 1) raw[row + x] = (raw[row + x]! + raw[up + x]!) & 0xff;
    } else if (filter === 3) {
      for (let x = 0; x < stride; x += 1) {
        const a = x >= bpp ? raw[row + x - bpp]! : 0;
        const b = y > 0 ? raw[up + x]! : 0;
        raw[row + x] = (raw[row + x]! + ((a + b) >> 1)) & 0xff;
      }
    } else if (filter === 4) {
      for (let x = 0; x < bpp; x += 1) raw[row + x] = (raw[row + x]! + raw[up + x]!) & 0xff;
      for (let x = bpp; x < stride; x += 1) {
        const a = raw[row + x - bpp]!;
        const b = raw[up + x]!;
        const c = raw[up + x - bpp]!;
        const pa = Math.abs(b - c);
        const pb = Math.abs(a - c);
        const pc = Math.abs(a + b - 2 * c);
        raw[row + x] = (raw[row + x]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
    } else throw new Error(`PNG: unknown row filter ${filter}.`);
  }
}

function toRgba(raw: Uint8Array, width: number, height: number, channels: number): Uint8Array {
  const out = new Uint8Array(width * height * 4);
  let o = 0;
  for (let y = 0; y < height; y += 1) {
    let i = y * (width * channels + 1) + 1;
    for (let x = 0; x < width; x += 1, i += channels, o += 4) {
      if (channels >= 3) {
        out[o] = raw[i]!;
        out[o + 1] = raw[i + 1]!;
        out[o + 2] = raw[i + 2]!;
        out[o + 3] = channels === 4 ? raw[i + 3]! : 255;
      } else {
        out[o] = out[o + 1] = out[o + 2] = raw[i]!;
        out[o + 3] = channels === 2 ? raw[i + 1]! : 255;
      }
    }
  }
  return out;
}

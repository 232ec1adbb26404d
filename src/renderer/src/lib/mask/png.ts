// The mask as a PNG, and PNGs read back into masks. Pure (fast-png works in the browser and under
// Node alike), so the export is tested pixel by pixel under Node.
//
// What the server does with the upload (PROTOCOL.md, "Uploads"): it keeps the ORIGINAL's colours and
// takes the uploaded mask's ALPHA; LoadImage then computes mask = 1 - alpha. So the exported PNG is
// RGBA at the image's exact size with alpha = 255 - coverage (0 where fully painted, 255 where
// untouched, in between for soft edges and lower opacity) and black RGB, which the server discards.
// Decoding uses fast-png; the export writes its PNG with png-writer.ts, in bands straight from the
// coverage (fast-png's encoder needs the whole RGBA image in memory first, see there).
import { convertIndexedToRgb, decode } from 'fast-png';
import { writeRgbaPng, writeRgbaPngAsync, type FillRow, type ZlibLevel } from './png-writer';
import type { RgbaImage } from './types';

/** The part of a model the export needs. */
export interface CoverageSource {
  width: number;
  height: number;
  coverage: Uint8Array;
}

export interface DecodedPng extends RgbaImage {
  /** Whether the file carries transparency (an alpha channel or a tRNS chunk). */
  hasAlpha: boolean;
}

/**
 * zlib level of the synchronous export: zlib's default. On masks (long runs) it takes little more
 * time than level 1 and makes a file about half the size (bench/mask-painter.ts prints both).
 */
export const EXPORT_ZLIB_LEVEL = 6;

/** RGBA of the mask: RGB 0, alpha = 255 - coverage (the whole image at once; the bench compares encoders with it). */
export function maskRgba(source: CoverageSource): RgbaImage {
  const { width, height, coverage } = source;
  const data = new Uint8Array(width * height * 4);
  // Writing 32-bit words (alpha in the top byte on little-endian hosts) is several times faster
  // than four byte stores per pixel.
  const words = new Uint32Array(data.buffer);
  const shift = littleEndian() ? 24 : 0;
  for (let i = 0; i < coverage.length; i += 1) words[i] = (255 - coverage[i]!) << shift;
  return { width, height, data };
}

/** Fills a row of the mask PNG: RGB stay 0 (rows come zeroed), alpha = 255 - coverage. */
function maskRow(source: CoverageSource): FillRow {
  const { width, coverage } = source;
  return (y, row) => {
    const start = y * width;
    for (let x = 0, o = 3; x < width; x += 1, o += 4) row[o] = 255 - coverage[start + x]!;
  };
}

/** The PNG to upload with /api/upload/mask: RGBA, black, alpha = 255 - coverage, the image's size. */
export function exportMaskPng(source: CoverageSource, zlibLevel: number = EXPORT_ZLIB_LEVEL): Uint8Array {
  return writeRgbaPng(source.width, source.height, maskRow(source), clampLevel(zlibLevel));
}

/**
 * The same image (the same pixels; the compressed bytes may differ), deflated natively in slices
 * that leave the page responsive. The coverage is copied first, so painting meanwhile does not
 * change what is saved.
 */
export function exportMaskPngAsync(source: CoverageSource): Promise<Uint8Array> {
  const snapshot = { width: source.width, height: source.height, coverage: source.coverage.slice() };
  return writeRgbaPngAsync(snapshot.width, snapshot.height, maskRow(snapshot));
}

function clampLevel(level: number): ZlibLevel {
  return Math.min(9, Math.max(0, Math.round(level))) as ZlibLevel;
}

let endianness: boolean | null = null;
function littleEndian(): boolean {
  endianness ??= new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  return endianness;
}

// ---- reading PNGs ------------------------------------------------------------------------------

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b);
}

function u32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

/** Width and height from the IHDR chunk, without decoding; null when it is not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (!isPng(bytes) || bytes.length < 24) return null;
  return { width: u32(bytes, 16), height: u32(bytes, 20) };
}

/** Whether the PNG carries transparency: colour type 4 or 6, or a tRNS chunk before the image data. */
export function pngHasAlpha(bytes: Uint8Array): boolean {
  if (!isPng(bytes) || bytes.length < 26) return false;
  const colourType = bytes[25];
  if (colourType === 4 || colourType === 6) return true;
  let at = 8;
  while (at + 8 <= bytes.length) {
    const length = u32(bytes, at);
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
    if (type === 'tRNS') return true;
    if (type === 'IDAT' || type === 'IEND') return false;
    at += 12 + length;
  }
  return false;
}

/** Decodes any PNG (grey, grey+alpha, RGB, RGBA, palette; 1 to 16 bits; tRNS) to 8-bit RGBA. */
export function decodePngRgba(bytes: Uint8Array): DecodedPng {
  const png = decode(bytes);
  const { width, height } = png;
  const count = width * height;
  const out = new Uint8Array(count * 4);

  if (png.palette) {
    const rgb = convertIndexedToRgb(png);
    const channels = png.palette[0]?.length ?? 3;
    for (let i = 0; i < count; i += 1) {
      out[i * 4] = rgb[i * channels]!;
      out[i * 4 + 1] = rgb[i * channels + 1]!;
      out[i * 4 + 2] = rgb[i * channels + 2]!;
      out[i * 4 + 3] = channels === 4 ? rgb[i * channels + 3]! : 255;
    }
    return { width, height, data: out, hasAlpha: channels === 4 };
  }

  const channels = png.channels;
  const samples = unpackSamples(png.data, png.depth, width, height, channels);
  const max = png.depth === 16 ? 65535 : (1 << png.depth) - 1;
  const to8 = (v: number): number => (png.depth === 8 ? v : png.depth === 16 ? v >>> 8 : Math.round((v * 255) / max));
  const key = png.transparency && png.transparency.length > 0 ? png.transparency : null;
  for (let i = 0; i < count; i += 1) {
    const s = i * channels;
    const o = i * 4;
    if (channels <= 2) {
      const g = to8(samples[s]!);
      out[o] = g;
      out[o + 1] = g;
      out[o + 2] = g;
      out[o + 3] = channels === 2 ? to8(samples[s + 1]!) : key && samples[s] === key[0] ? 0 : 255;
    } else {
      out[o] = to8(samples[s]!);
      out[o + 1] = to8(samples[s + 1]!);
      out[o + 2] = to8(samples[s + 2]!);
      out[o + 3] =
        channels === 4
          ? to8(samples[s + 3]!)
          : key && key.length >= 3 && samples[s] === key[0] && samples[s + 1] === key[1] && samples[s + 2] === key[2]
            ? 0
            : 255;
    }
  }
  return { width, height, data: out, hasAlpha: channels === 2 || channels === 4 || key !== null };
}

/** One sample per array element: bytes or 16-bit values as decoded, sub-byte depths unpacked per row. */
function unpackSamples(data: ArrayLike<number>, depth: number, width: number, height: number, channels: number): ArrayLike<number> {
  if (depth >= 8) return data;
  const perRow = width * channels;
  const rowBytes = Math.ceil((perRow * depth) / 8);
  const mask = (1 << depth) - 1;
  const out = new Uint8Array(perRow * height);
  for (let y = 0; y < height; y += 1) {
    for (let i = 0; i < perRow; i += 1) {
      const bit = i * depth;
      const byte = data[y * rowBytes + (bit >> 3)]!;
      out[y * perRow + i] = (byte >> (8 - depth - (bit & 7))) & mask;
    }
  }
  return out;
}

// ---- masks from images -------------------------------------------------------------------------

/** Re-opening a masked image: coverage = 255 - alpha (what LoadImage reads as the mask). */
export function coverageFromAlpha(image: RgbaImage): Uint8Array {
  const count = image.width * image.height;
  const coverage = new Uint8Array(count);
  for (let i = 0; i < count; i += 1) coverage[i] = 255 - image.data[i * 4 + 3]!;
  return coverage;
}

/** Whether any pixel is less than opaque. */
export function hasTransparentPixel(image: RgbaImage): boolean {
  const count = image.width * image.height;
  for (let i = 0; i < count; i += 1) if (image.data[i * 4 + 3] !== 255) return true;
  return false;
}

/**
 * A separate mask file as coverage at the image's size (nearest-neighbour when sizes differ, as the
 * server scales it). With transparency, transparent = masked (the upload convention); without,
 * it is read the way people draw masks, white = masked.
 */
export function coverageFromMaskImage(mask: DecodedPng, width: number, height: number): Uint8Array {
  const coverage = new Uint8Array(width * height);
  for (let y = 0; y < height; y += 1) {
    const my = Math.min(mask.height - 1, Math.floor((y * mask.height) / height));
    for (let x = 0; x < width; x += 1) {
      const mx = Math.min(mask.width - 1, Math.floor((x * mask.width) / width));
      const m = (my * mask.width + mx) * 4;
      coverage[y * width + x] = mask.hasAlpha
        ? 255 - mask.data[m + 3]!
        : Math.round(0.299 * mask.data[m]! + 0.587 * mask.data[m + 1]! + 0.114 * mask.data[m + 2]!);
    }
  }
  return coverage;
}

/** Sets every alpha to 255 in place (the original's colours, shown under the mask overlay). */
export function makeOpaque(image: RgbaImage): RgbaImage {
  const count = image.width * image.height;
  for (let i = 0; i < count; i += 1) image.data[i * 4 + 3] = 255;
  return image;
}

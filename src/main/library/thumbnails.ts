// Thumbnails of library images: decoded once (PNG with png-decode.ts, else pngjs; JPEG with jpeg-js), box-filtered
// down so the longer edge fits `maxSize`, flattened onto white (JPEG has no alpha) and encoded as
// JPEG (jpeg-encode.ts) into <library>/.thumbnails/<sha256>-<size>.jpg. Keyed by content, so duplicates share one,
// and written under a temporary name first so a half-written thumbnail is never served.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { writeFileAtomically } from '@main/files/publish';
import { encodeJpeg } from './jpeg-encode';
import { decodeSimplePng } from './png-decode';
import { imageDimensions, isJpeg, isPng } from './media-images';

/** Larger sources are not decoded (memory): they get no thumbnail. */
const MAX_SOURCE_PIXELS = 64 * 1024 * 1024;
const MAX_SOURCE_BYTES = 200 * 1024 * 1024;
const QUALITY = 82;

export const MIN_THUMBNAIL_SIZE = 16;
export const MAX_THUMBNAIL_SIZE = 2048;

export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

export function clampThumbnailSize(size: number): number {
  if (!Number.isFinite(size)) return 256;
  return Math.max(MIN_THUMBNAIL_SIZE, Math.min(MAX_THUMBNAIL_SIZE, Math.round(size)));
}

/** PNG or JPEG to RGBA; null for other formats and for images too large to decode safely. */
export function decodeForThumbnail(bytes: Buffer): Rgba | null {
  const size = imageDimensions(bytes);
  if (!size || size.width * size.height > MAX_SOURCE_PIXELS) return null;
  if (isPng(bytes)) {
    const simple = decodeSimplePng(bytes);
    if (simple) return simple;
    const png = PNG.sync.read(bytes);
    return { width: png.width, height: png.height, data: png.data };
  }
  if (isJpeg(bytes)) {
    const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: 64, maxMemoryUsageInMB: 1024 });
    return { width: image.width, height: image.height, data: image.data };
  }
  return null;
}

/** Box filter: each target pixel averages the source pixels it covers (alpha-weighted colour). */
export function downscale(src: Rgba, maxEdge: number): Rgba {
  const scale = Math.min(1, maxEdge / Math.max(src.width, src.height));
  const width = Math.max(1, Math.round(src.width * scale));
  const height = Math.max(1, Math.round(src.height * scale));
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    const y0 = Math.floor((y * src.height) / height);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * src.height) / height));
    for (let x = 0; x < width; x += 1) {
      const x0 = Math.floor((x * src.width) / width);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * src.width) / width));
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = y0; sy < y1; sy += 1) {
        let i = (sy * src.width + x0) * 4;
        for (let sx = x0; sx < x1; sx += 1, i += 4) {
          const alpha = src.data[i + 3]!;
          r += src.data[i]! * alpha;
          g += src.data[i + 1]! * alpha;
          b += src.data[i + 2]! * alpha;
          a += alpha;
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const o = (y * width + x) * 4;
      out[o] = a === 0 ? 0 : Math.round(r / a);
      out[o + 1] = a === 0 ? 0 : Math.round(g / a);
      out[o + 2] = a === 0 ? 0 : Math.round(b / a);
      out[o + 3] = Math.round(a / n);
    }
  }
  return { width, height, data: out };
}

/** JPEG cannot hold alpha: transparent parts become white, as a viewer shows them on paper. */
function flattenOnWhite(image: Rgba): Rgba {
  const data = new Uint8Array(image.data.length);
  for (let i = 0; i < data.length; i += 4) {
    const a = image.data[i + 3]! / 255;
    data[i] = Math.round(image.data[i]! * a + 255 * (1 - a));
    data[i + 1] = Math.round(image.data[i + 1]! * a + 255 * (1 - a));
    data[i + 2] = Math.round(image.data[i + 2]! * a + 255 * (1 - a));
    data[i + 3] = 255;
  }
  return { width: image.width, height: image.height, data };
}

export interface ThumbnailFile {
  path: string;
  width: number;
  height: number;
}

/** The size of an existing thumbnail file, or null when there is none (or it is unreadable). */
export async function existingThumbnail(file: string): Promise<ThumbnailFile | null> {
  const handle = await fs.open(file, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const head = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const size = imageDimensions(head.subarray(0, bytesRead));
    return size ? { path: file, ...size } : null;
  } finally {
    await handle.close();
  }
}

/** Writes a thumbnail of `source` to `target`; null when the source is not a decodable PNG/JPEG. */
export async function writeThumbnail(source: string, target: string, maxSize: number): Promise<ThumbnailFile | null> {
  const info = await fs.stat(source);
  if (info.size > MAX_SOURCE_BYTES) return null;
  let image: Rgba | null;
  try {
    image = decodeForThumbnail(await fs.readFile(source));
  } catch {
    return null; // a damaged image: no thumbnail, the file itself stays
  }
  if (!image) return null;
  const small = flattenOnWhite(downscale(image, maxSize));
  const encoded = encodeJpeg(small, QUALITY);
  await fs.mkdir(path.dirname(target), { recursive: true });
  await writeFileAtomically(target, encoded);
  return { path: target, width: small.width, height: small.height };
}

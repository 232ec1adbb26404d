// Thumbnails of library images, made by sharp (libvips): the source (PNG, JPEG, WebP, or a GIF's first
// frame) is scaled down so the longer edge fits `maxSize` (never up), flattened onto white (JPEG has no
// alpha) and encoded as JPEG into <library>/.thumbnails/<sha256>-<size>.jpg. Keyed by content, so
// duplicates share one, and written under a temporary name first so a half-written thumbnail is never
// served. sharp is loaded on the first thumbnail, not at start: most commands never make one.
// What each step costs, and what was tried: bench/thumbnail-options.ts, bench/PROFILE-issue25.md.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type SharpConstructor from 'sharp';
import type { Sharp } from 'sharp';
import { writeFileAtomically } from '@main/files/publish';
import { imageDimensions, isGif, isJpeg, isPng, isWebp } from './media-images';
import { readBytes } from './read-bytes';

/** Larger sources are not decoded (memory): they get no thumbnail. */
const MAX_SOURCE_PIXELS = 64 * 1024 * 1024;
const MAX_SOURCE_BYTES = 200 * 1024 * 1024;
const QUALITY = 82;
/** Enough of the file to tell its format and read its size from the header. */
const HEAD_BYTES = 64 * 1024;
/**
 * Sources up to this size (a 512 or 768 px output) are read whole, in one read, and decoded from
 * memory: given a path, libvips opens and reads the file once per loader it asks "is this yours?"
 * (10 opens and ~80 file calls for one PNG) and again to decode it. Larger ones are decoded from
 * the file, as the bound is what a grid asking for 60 thumbnails at once may hold (sharp's jobs
 * wait for libuv's 4 threads with their source in memory).
 */
const IN_MEMORY_SOURCE_BYTES = 1024 * 1024;

export const MIN_THUMBNAIL_SIZE = 16;
export const MAX_THUMBNAIL_SIZE = 2048;

export function clampThumbnailSize(size: number): number {
  if (!Number.isFinite(size)) return 256;
  return Math.max(MIN_THUMBNAIL_SIZE, Math.min(MAX_THUMBNAIL_SIZE, Math.round(size)));
}

let loading: Promise<typeof SharpConstructor> | null = null;

function loadSharp(): Promise<typeof SharpConstructor> {
  loading ??= import('sharp').then(({ default: sharp }) => {
    // One libvips worker per image (its default is one per core): a thumbnail is a few milliseconds
    // of work, and on a person's machine the cores belong to the local server's job running beside
    // us. Thumbnails asked for at once still overlap, bounded by libuv's thread pool (4 by default).
    sharp.concurrency(1);
    // libvips's operation cache keeps recent decodes and intermediate images (up to 50 MB) for
    // repeats of the same operation; every thumbnail here is a new file made once, so it only
    // holds memory (measured: no faster with it on, bench/PROFILE-issue25.md).
    sharp.cache(false);
    return sharp;
  });
  return loading;
}

/** The formats thumbnails are made of, told by their first bytes (sharp itself would also read SVG, TIFF, PDF...). */
export function isThumbnailSource(head: Uint8Array): boolean {
  return isPng(head) || isJpeg(head) || isWebp(head) || isGif(head);
}

/**
 * A sharp pipeline that decodes `input` (a file path or its bytes) and scales it to fit `maxEdge`
 * (never up); null when `head` (the first bytes) is not a format thumbnails are made of or says the
 * image is too large to decode safely. sharp refuses a larger image than its header said, too.
 */
export async function thumbnailPipeline(input: string | Buffer, head: Uint8Array, maxEdge: number): Promise<Sharp | null> {
  if (!isThumbnailSource(head)) return null;
  const size = imageDimensions(head);
  if (!size || size.width * size.height > MAX_SOURCE_PIXELS) return null;
  const sharp = await loadSharp();
  // animated: false (the default) takes a GIF's or WebP's first frame.
  return sharp(input, { limitInputPixels: MAX_SOURCE_PIXELS, animated: false }).resize({
    width: maxEdge,
    height: maxEdge,
    fit: 'inside',
    withoutEnlargement: true,
  });
}

export interface ThumbnailFile {
  path: string;
  width: number;
  height: number;
}

/** The first bytes of an open file, in one read: enough for a header (fewer when the file is shorter). */
async function headOf(handle: fs.FileHandle): Promise<Buffer> {
  const head = Buffer.alloc(HEAD_BYTES);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  return head.subarray(0, bytesRead);
}

/** The first bytes of a file (fewer when it is shorter). */
async function readHead(file: string): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    return await headOf(handle);
  } finally {
    await handle.close();
  }
}

/**
 * What sharp decodes: the whole file in memory when it is small (one open, stat, read, close), else
 * its path, with its first bytes either way; null when it is too large to thumbnail.
 */
async function readSource(file: string): Promise<{ input: string | Buffer; head: Buffer } | null> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > MAX_SOURCE_BYTES) return null;
    if (size > IN_MEMORY_SOURCE_BYTES) return { input: file, head: await headOf(handle) };
    const bytes = await readBytes(handle, size);
    return { input: bytes, head: bytes };
  } finally {
    await handle.close();
  }
}

/** The size of an existing thumbnail file, or null when there is none (or it is unreadable). */
export async function existingThumbnail(file: string): Promise<ThumbnailFile | null> {
  const head = await readHead(file).catch(() => null);
  const size = head ? imageDimensions(head) : null;
  return size ? { path: file, ...size } : null;
}

/** Writes a thumbnail of `source` to `target`; null when the source is not an image thumbnails are made of, or is damaged. */
export async function writeThumbnail(source: string, target: string, maxSize: number): Promise<ThumbnailFile | null> {
  const read = await readSource(source);
  const pipeline = read ? await thumbnailPipeline(read.input, read.head, maxSize) : null;
  if (!pipeline) return null;
  let encoded;
  try {
    // Huffman tables of libjpeg's defaults, not optimised per image: a second pass over the
    // coefficients less (~0.2 ms of ~5) for a file ~8% larger (6.6 KB instead of 6.2 for 256 px).
    encoded = await pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: QUALITY, optimiseCoding: false }).toBuffer({ resolveWithObject: true });
  } catch {
    return null; // a damaged image: no thumbnail, the file itself stays
  }
  try {
    await writeFileAtomically(target, encoded.data);
  } catch (error) {
    // The thumbnails folder is made with the first thumbnail (a mkdir less for every later one).
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await fs.mkdir(path.dirname(target), { recursive: true });
    await writeFileAtomically(target, encoded.data);
  }
  return { path: target, width: encoded.info.width, height: encoded.info.height };
}

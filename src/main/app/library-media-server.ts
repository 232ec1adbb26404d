// Serves library media URLs (src/shared/library-media.ts) for both transports: the Electron
// protocol handler and the browser harness's HTTP server turn a MediaResponse into their own.
// Only files of finished items, only from inside the library folder (real paths compared), read
// as streams (a video may be gigabytes), with single byte ranges for seeking.
import { constants as fsConstants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { parseLibraryMediaPath } from '@shared/library-media';
import { containedRealPath, type Library } from '../library';
import { parseByteRange } from './byte-range';

export interface MediaRequest {
  /** The URL's path after the media base, e.g. /file/12. */
  pathname: string;
  method: string;
  /** The Range header, when the client sent one (video seeking). */
  range: string | null;
}

export interface MediaResponse {
  status: number;
  headers: Record<string, string>;
  body: Readable | null;
}

const READ_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0);

/** Content types served as they are; anything else (html, svg, scripts...) goes out as bytes. */
const SAFE_MIME = /^(image\/(png|jpeg|gif|webp|avif|bmp)|video\/[a-z0-9.+-]+|audio\/[a-z0-9.+-]+)$/i;

/**
 * Every media response: never sniffed into something else, never a document that runs script
 * (a sandboxed, resource-less CSP in case one is opened directly).
 */
const BASE_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Referrer-Policy': 'no-referrer',
};
/** Thumbnails are named by item id and the id is never reused (AUTOINCREMENT): cache for good. */
const THUMB_CACHE = 'private, max-age=31536000, immutable';
/** A file may be deleted from the library: always ask again. */
const FILE_CACHE = 'private, no-cache';

function plain(status: number, extra: Record<string, string> = {}): MediaResponse {
  return { status, headers: { ...BASE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...extra }, body: null };
}

export async function serveLibraryMedia(library: Library, request: MediaRequest): Promise<MediaResponse> {
  const target = parseLibraryMediaPath(request.pathname);
  if (!target) return plain(404);
  const method = request.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') return plain(405, { Allow: 'GET, HEAD' });

  let path: string;
  let mime: string;
  let cacheControl: string;
  if (target.kind === 'file') {
    const found = await library.file(target.id);
    if (!found) return plain(404);
    if (!found.file.ok) return plain(found.file.reason === 'outside' ? 403 : 404);
    path = found.file.path;
    mime = found.item.mime !== null && SAFE_MIME.test(found.item.mime) ? found.item.mime : 'application/octet-stream';
    cacheControl = FILE_CACHE;
  } else {
    let thumbnail;
    try {
      thumbnail = await library.thumbnail(target.id);
    } catch {
      // An image that cannot be decoded has no thumbnail: the grid shows an icon instead.
      thumbnail = null;
    }
    if (!thumbnail) return plain(404);
    const contained = await containedRealPath(thumbnail.path, library.root);
    if (!contained.ok) return plain(contained.reason === 'outside' ? 403 : 404);
    path = contained.path;
    mime = thumbnail.mime;
    cacheControl = THUMB_CACHE;
  }
  return streamFile(path, mime, cacheControl, method === 'HEAD', request.range);
}

async function streamFile(path: string, mime: string, cacheControl: string, headOnly: boolean, rangeHeader: string | null): Promise<MediaResponse> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch {
    return plain(404);
  }
  let handedOver = false;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return plain(404);
    const size = stat.size;
    const headers: Record<string, string> = {
      ...BASE_HEADERS,
      'Content-Type': mime,
      'Accept-Ranges': 'bytes',
      'Cache-Control': cacheControl,
      'Last-Modified': stat.mtime.toUTCString(),
    };
    const range = rangeHeader === null ? null : parseByteRange(rangeHeader, size);
    if (range === 'unsatisfiable') return plain(416, { 'Content-Range': `bytes */${size}`, 'Accept-Ranges': 'bytes' });
    // No range, or one we do not serve (several ranges, a malformed header): the whole file.
    const [start, end, status] = range === null || range === 'ignore' ? [0, size - 1, 200] : [range.start, range.end, 206];
    headers['Content-Length'] = String(size === 0 ? 0 : end - start + 1);
    if (status === 206) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    if (headOnly || size === 0) return { status, headers, body: null };
    // The stream owns the handle from here and closes it when it ends or is destroyed.
    const body = handle.createReadStream({ start, end, autoClose: true, highWaterMark: 256 * 1024 });
    handedOver = true;
    return { status, headers, body };
  } finally {
    if (!handedOver) await handle.close().catch(() => undefined);
  }
}

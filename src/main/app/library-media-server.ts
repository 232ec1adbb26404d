// Serves library media URLs (src/shared/library-media.ts) for both transports: the Electron
// protocol handler and the browser harness's HTTP server turn a MediaResponse into their own.
import type { Readable } from 'node:stream';
import type { Library } from '../library';

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

export async function serveLibraryMedia(_library: Library, _request: MediaRequest): Promise<MediaResponse> {
  return { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: null };
}

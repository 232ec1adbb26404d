// URLs of the library media scheme, shared by the renderer (which builds them) and main (which
// parses and serves them). Files are named by item id, never by path: the server behind a URL
// can only ever serve a file the library index knows, from inside the library folder.
//   <base>/file/<id>    the output file itself (video and audio stream with Range requests)
//   <base>/thumb/<id>   its cached JPEG thumbnail
// <base> is `flowdeck-media://library` in Electron and `/media` in the browser harness.

export const LIBRARY_MEDIA_SCHEME = 'flowdeck-media';
export const ELECTRON_MEDIA_BASE = `${LIBRARY_MEDIA_SCHEME}://library`;
export const HARNESS_MEDIA_BASE = '/media';

export type LibraryMediaKind = 'file' | 'thumb';

export function libraryMediaUrl(base: string, kind: LibraryMediaKind, id: number): string {
  return `${base}/${kind}/${id}`;
}

/** The kind and item id a media path names (the part after the base), or null. */
export function parseLibraryMediaPath(pathname: string): { kind: LibraryMediaKind; id: number } | null {
  const match = /^\/(file|thumb)\/([1-9]\d{0,15})$/.exec(pathname);
  if (!match) return null;
  const id = Number(match[2]);
  if (!Number.isSafeInteger(id)) return null;
  return { kind: match[1] as LibraryMediaKind, id };
}

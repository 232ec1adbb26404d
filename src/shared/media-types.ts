// The one table of file types by extension, for every place that must name a type from a file name
// or the other way round: the Content-Type of an upload, the type of a library file whose bytes do
// not tell, the type an output preview is served with, the extension a nameless output is given.
// (The demo service keeps its own tables on purpose: it stands in for a separate server. The app's
// static assets have theirs in src/main/app/csp.ts, with charsets.)
// Shared with the renderer, so plain TypeScript: no Node modules.

/** What a file of unknown type is sent and served as. */
export const UNKNOWN_MIME = 'application/octet-stream';

/** Each type with its extensions (lower case, without the dot); the first one is its usual one. */
const TYPES: ReadonlyArray<readonly [mime: string, extensions: readonly string[]]> = [
  ['image/png', ['png']],
  ['image/jpeg', ['jpg', 'jpeg']],
  ['image/webp', ['webp']],
  ['image/gif', ['gif']],
  ['image/bmp', ['bmp']],
  ['image/tiff', ['tif', 'tiff']],
  ['image/avif', ['avif']],
  ['video/mp4', ['mp4', 'm4v']],
  ['video/webm', ['webm']],
  ['video/quicktime', ['mov']],
  ['video/x-matroska', ['mkv']],
  ['video/x-msvideo', ['avi']],
  ['audio/mpeg', ['mp3']],
  ['audio/wav', ['wav']],
  ['audio/flac', ['flac']],
  ['audio/ogg', ['ogg', 'opus']],
  ['audio/mp4', ['m4a']],
  ['audio/aac', ['aac']],
  ['model/gltf-binary', ['glb']],
  ['model/gltf+json', ['gltf']],
  ['model/obj', ['obj']],
  ['model/ply', ['ply']],
  ['model/stl', ['stl']],
  ['model/fbx', ['fbx']],
  ['application/json', ['json']],
  ['text/plain', ['txt']],
];

const MIME_BY_EXTENSION = new Map<string, string>(TYPES.flatMap(([mime, extensions]) => extensions.map((ext) => [ext, mime] as const)));
const EXTENSION_BY_MIME = new Map<string, string>(TYPES.map(([mime, extensions]) => [mime, extensions[0] ?? '']));

/** The extension of a file name or path (lower case, without the dot), or null when it has none. */
export function extensionOf(name: string): string | null {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot < 0 ? null : base.slice(dot + 1).toLowerCase();
}

/** The type of a file from its name's extension ("a.PNG" -> "image/png"), or null when unknown. */
export function mimeForFileName(name: string): string | null {
  const ext = extensionOf(name);
  return ext === null ? null : (MIME_BY_EXTENSION.get(ext) ?? null);
}

/** The usual extension of a type, without the dot ("image/jpeg" -> "jpg"), or null when unknown. */
export function extensionForMime(mime: string): string | null {
  return EXTENSION_BY_MIME.get(mime.split(';')[0]?.trim().toLowerCase() ?? '') || null;
}

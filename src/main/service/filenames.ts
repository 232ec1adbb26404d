// Server-supplied file names are untrusted: a name becomes a path on the user's disk only after it
// has been reduced to one safe path component. The rules cover Linux, macOS and Windows at once,
// because a library folder may be synced between them.

/** Leaves room under the usual 255-byte component limit for ".part-<random>" and " (12)". */
const MAX_NAME_BYTES = 200;

// Windows device names, reserved with any extension ("con.png" opens the console).
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;
// C0 and C1 control characters, characters Windows forbids in names, and the bidirectional
// controls that can make "evil\u202Egnp.exe" display as "evilexe.png".

const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f<>:"|?*\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a character. */
function truncateUtf8(text: string, maxBytes: number): string {
  if (utf8Length(text) <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const n = utf8Length(ch);
    if (bytes + n > maxBytes) break;
    out += ch;
    bytes += n;
  }
  return out;
}

function clean(name: string): string {
  // Only the last path component counts: "../../x.png" and "a\\b.png" keep "x.png" and "b.png".
  const base = name.split(/[/\\]/).pop() ?? '';
  let s = base.normalize('NFC').replace(FORBIDDEN, '_');
  // No "..": collapse every run of dots, then drop leading dots (no hidden files, no "." / "..").
  s = s.replace(/\.{2,}/g, '.').replace(/^[.\s]+/, '');
  // Windows strips trailing dots and spaces, which would change the name behind our back.
  s = s.replace(/[.\s]+$/, '');
  if (s === '') return '';

  const dot = s.lastIndexOf('.');
  let stem = dot > 0 ? s.slice(0, dot) : s;
  let ext = dot > 0 ? s.slice(dot) : '';
  if (RESERVED.test((s.split('.')[0] ?? '').trim())) stem = `_${stem}`;
  if (utf8Length(ext) > 32) ext = ''; // an "extension" that long is not one; keep the stem instead
  stem = truncateUtf8(stem, MAX_NAME_BYTES - utf8Length(ext)).replace(/[.\s]+$/, '');
  if (stem === '') stem = '_';
  return stem + ext;
}

/**
 * Reduces a server-supplied name to one safe file name component: no separators, no "..",
 * no control characters, no Windows-reserved device names, no trailing dots or spaces,
 * at most 200 UTF-8 bytes, never empty (falls back to `fallback`, itself cleaned, then "file").
 */
export function safeBaseName(serverName: string, fallback: string): string {
  return clean(serverName) || clean(fallback) || 'file';
}

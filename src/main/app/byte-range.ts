// The Range header of a media request (RFC 9110 section 14): one byte range, which is what a
// video or audio element sends when it seeks. Several ranges, other units and malformed headers
// are "ignore" (the server may answer with the whole file, which every client accepts); a range
// that starts beyond the end is "unsatisfiable" (416).

export type ByteRange = { start: number; end: number } | 'ignore' | 'unsatisfiable';

export function parseByteRange(header: string, size: number): ByteRange {
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return 'ignore';
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return 'ignore';
  if (first === '') {
    // bytes=-N: the last N bytes.
    const suffix = Number(last);
    if (!Number.isSafeInteger(suffix)) return 'ignore';
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return 'ignore';
  if (start >= size) return 'unsatisfiable';
  if (end < start) return 'ignore';
  return { start, end: Math.min(end, size - 1) };
}

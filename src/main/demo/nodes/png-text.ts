// PNG text chunks (tEXt / iTXt). pngjs writes no text chunks, so they are spliced in right after
// IHDR (the PNG spec allows text chunks anywhere between IHDR and IEND). The real server stores
// the workflow as a `prompt` text chunk; we do the same so saved images carry their provenance.

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(body, 8);
  view.setUint32(8 + body.length, crc32(out, 4, 8 + body.length));
  return out;
}

/** A tEXt chunk when the text is Latin-1, else an uncompressed iTXt chunk (UTF-8), as PIL does. */
export function textChunk(keyword: string, text: string): Uint8Array {
  if (!/^[\x20-\x7e\xa1-\xff]{1,79}$/.test(keyword)) throw new RangeError('PNG text keyword must be 1-79 Latin-1 characters');
  const latin1 = /^[\x00-\xff]*$/.test(text);
  if (latin1) return chunk('tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1'));
  // keyword \0, compression flag 0, method 0, empty language tag \0, empty translated keyword \0, text
  const head = Buffer.from(`${keyword}\0\0\0\0\0`, 'latin1');
  return chunk('iTXt', Buffer.concat([head, Buffer.from(text, 'utf8')]));
}

/** Inserts text chunks after IHDR of an encoded PNG. */
export function withTextChunks(png: Uint8Array, texts: Record<string, string>): Uint8Array {
  const entries = Object.entries(texts);
  if (entries.length === 0) return png;
  // 8-byte signature, then IHDR: 4 length + 4 type + 13 data + 4 crc = 25 bytes.
  const ihdrEnd = 8 + 25;
  const extra = entries.map(([k, v]) => textChunk(k, v));
  const total = png.length + extra.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(total);
  out.set(png.subarray(0, ihdrEnd), 0);
  let at = ihdrEnd;
  for (const c of extra) {
    out.set(c, at);
    at += c.length;
  }
  out.set(png.subarray(ihdrEnd), at);
  return out;
}

/** Reads tEXt and uncompressed iTXt chunks (used by tests and by anyone checking provenance). */
export function readTextChunks(png: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let at = 8;
  while (at + 12 <= png.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    const body = png.subarray(at + 8, Math.min(png.length, at + 8 + length));
    const zero = body.indexOf(0);
    if (type === 'tEXt' && zero > 0) {
      out[Buffer.from(body.subarray(0, zero)).toString('latin1')] = Buffer.from(body.subarray(zero + 1)).toString('latin1');
    } else if (type === 'iTXt' && zero > 0 && body[zero + 1] === 0) {
      const languageEnd = body.indexOf(0, zero + 3);
      const translatedEnd = languageEnd < 0 ? -1 : body.indexOf(0, languageEnd + 1);
      if (translatedEnd >= 0) {
        out[Buffer.from(body.subarray(0, zero)).toString('latin1')] = Buffer.from(body.subarray(translatedEnd + 1)).toString('utf8');
      }
    }
    if (type === 'IEND') break;
    at += 12 + length;
  }
  return out;
}

// Image dimensions straight from the file header (PNG, JPEG, WebP, GIF, BMP), without decoding
// pixels: the library indexes thousands of files and only needs the first bytes of each.

export interface Dimensions {
  width: number;
  height: number;
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  if (at + length > bytes.length) return '';
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function valid(width: number, height: number): Dimensions | null {
  return width > 0 && height > 0 ? { width, height } : null;
}

export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && bytes[0] === 0x89 && ascii(bytes, 1, 3) === 'PNG' && bytes[4] === 0x0d && bytes[5] === 0x0a;
}

export function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

export function isWebp(bytes: Uint8Array): boolean {
  return ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP';
}

export function isGif(bytes: Uint8Array): boolean {
  const magic = ascii(bytes, 0, 6);
  return magic === 'GIF87a' || magic === 'GIF89a';
}

export function isBmp(bytes: Uint8Array): boolean {
  return bytes.length >= 26 && ascii(bytes, 0, 2) === 'BM';
}

function pngDimensions(bytes: Uint8Array): Dimensions | null {
  // Signature (8), then the IHDR chunk: length (4), "IHDR" (4), width (4), height (4).
  if (bytes.length < 24 || ascii(bytes, 12, 4) !== 'IHDR') return null;
  const v = view(bytes);
  return valid(v.getUint32(16), v.getUint32(20));
}

/** Start-of-frame markers carry the size: SOF0-3, 5-7, 9-11, 13-15 (not DHT C4, JPG C8, DAC CC). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpegDimensions(bytes: Uint8Array): Dimensions | null {
  const v = view(bytes);
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null; // lost sync: not a marker where one must be
    let marker = bytes[at + 1]!;
    // Fill bytes: any number of 0xFF may precede a marker.
    while (marker === 0xff && at + 2 < bytes.length) {
      at += 1;
      marker = bytes[at + 1]!;
    }
    // Markers without a length: TEM, RST0-7, SOI.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image / start of scan before any SOF
    if (at + 4 > bytes.length) return null;
    const length = v.getUint16(at + 2);
    if (isStartOfFrame(marker)) {
      if (at + 9 > bytes.length) return null;
      return valid(v.getUint16(at + 7), v.getUint16(at + 5));
    }
    at += 2 + length;
  }
  return null;
}

function webpDimensions(bytes: Uint8Array): Dimensions | null {
  const chunk = ascii(bytes, 12, 4);
  const v = view(bytes);
  if (chunk === 'VP8X' && bytes.length >= 30) {
    const w = bytes[24]! | (bytes[25]! << 8) | (bytes[26]! << 16);
    const h = bytes[27]! | (bytes[28]! << 8) | (bytes[29]! << 16);
    return valid(w + 1, h + 1);
  }
  if (chunk === 'VP8L' && bytes.length >= 25 && bytes[20] === 0x2f) {
    const bits = v.getUint32(21, true);
    return valid((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8 ' && bytes.length >= 30 && bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a) {
    return valid(v.getUint16(26, true) & 0x3fff, v.getUint16(28, true) & 0x3fff);
  }
  return null;
}

export function imageDimensions(bytes: Uint8Array): Dimensions | null {
  if (isPng(bytes)) return pngDimensions(bytes);
  if (isJpeg(bytes)) return jpegDimensions(bytes);
  if (isWebp(bytes)) return webpDimensions(bytes);
  if (isGif(bytes) && bytes.length >= 10) return valid(view(bytes).getUint16(6, true), view(bytes).getUint16(8, true));
  if (isBmp(bytes)) return valid(Math.abs(view(bytes).getInt32(18, true)), Math.abs(view(bytes).getInt32(22, true)));
  return null;
}

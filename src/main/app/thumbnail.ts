// A small PNG data URL of an uploaded image, made in main (the renderer has no network and no file
// access). PNG and JPEG are decoded; anything else, or anything too large to decode safely,
// gets no thumbnail rather than an error: the upload itself has succeeded.
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

const MAX_SOURCE_PIXELS = 64 * 1024 * 1024;

interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

function isPng(bytes: Uint8Array): boolean {
  return bytes.length > 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
}

function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

function decode(bytes: Uint8Array): Rgba | null {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isPng(bytes)) {
    // Width and height sit in the IHDR chunk: refuse oversized images before decoding them.
    if (buffer.length >= 24 && buffer.readUInt32BE(16) * buffer.readUInt32BE(20) > MAX_SOURCE_PIXELS) return null;
    const png = PNG.sync.read(buffer);
    return { width: png.width, height: png.height, data: png.data };
  }
  if (isJpeg(bytes)) {
    const image = jpeg.decode(buffer, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: 64, maxMemoryUsageInMB: 512 });
    return { width: image.width, height: image.height, data: image.data };
  }
  return null;
}

/** Box-filter downscale so that the longer edge is at most `maxEdge`. */
function downscale(src: Rgba, maxEdge: number): Rgba {
  const scale = Math.min(1, maxEdge / Math.max(src.width, src.height));
  const width = Math.max(1, Math.round(src.width * scale));
  const height = Math.max(1, Math.round(src.height * scale));
  if (width === src.width && height === src.height) return src;
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
        for (let sx = x0; sx < x1; sx += 1) {
          const i = (sy * src.width + sx) * 4;
          r += src.data[i] ?? 0;
          g += src.data[i + 1] ?? 0;
          b += src.data[i + 2] ?? 0;
          a += src.data[i + 3] ?? 0;
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const o = (y * width + x) * 4;
      out[o] = Math.round(r / n);
      out[o + 1] = Math.round(g / n);
      out[o + 2] = Math.round(b / n);
      out[o + 3] = Math.round(a / n);
    }
  }
  return { width, height, data: out };
}

export function thumbnailDataUrl(bytes: Uint8Array, maxEdge = 192): string | null {
  try {
    const image = decode(bytes);
    if (!image) return null;
    const small = downscale(image, maxEdge);
    const png = new PNG({ width: small.width, height: small.height });
    png.data = Buffer.from(small.data.buffer, small.data.byteOffset, small.data.byteLength);
    return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
  } catch {
    return null;
  }
}

/** The MIME type of an output file from its extension (what players and <img> need). */
export function mimeForFileName(name: string): string {
  const ext = name.toLowerCase().split('.').pop() ?? '';
  const types: Record<string, string> = {
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    webp: 'image/webp',
    gif: 'image/gif',
    bmp: 'image/bmp',
    mp4: 'video/mp4',
    webm: 'video/webm',
    mov: 'video/quicktime',
    mkv: 'video/x-matroska',
    mp3: 'audio/mpeg',
    wav: 'audio/wav',
    flac: 'audio/flac',
    ogg: 'audio/ogg',
    opus: 'audio/ogg',
    m4a: 'audio/mp4',
    glb: 'model/gltf-binary',
    gltf: 'model/gltf+json',
    obj: 'model/obj',
    json: 'application/json',
    txt: 'text/plain',
  };
  return types[ext] ?? 'application/octet-stream';
}

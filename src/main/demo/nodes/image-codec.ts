// Image codecs for the demo nodes: PNG (pngjs, synchronous API) and JPEG (jpeg-js), chosen by the
// file's magic bytes, never by its name. Every failure is an ImageDecodeError whose message says
// what the bytes looked like, so a user who uploads a WebP or a text file learns why it failed.
import { PNG } from 'pngjs';
import * as jpeg from 'jpeg-js';
import type { RgbaImage } from '../node-api';
import { withTextChunks } from './png-text';

export class ImageDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageDecodeError';
  }
}

/** The cloud service refuses images above 64 megapixels; the demo keeps memory bounded the same way. */
export const MAX_DECODE_PIXELS = 64 * 1024 * 1024;

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, magic: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + magic.length) return false;
  return magic.every((b, i) => bytes[offset + i] === b);
}

export function isPng(bytes: Uint8Array): boolean {
  return startsWith(bytes, PNG_MAGIC);
}

export function isJpeg(bytes: Uint8Array): boolean {
  return startsWith(bytes, [0xff, 0xd8, 0xff]);
}

/** Names formats we recognise but cannot decode, for a more useful error. */
function describeBytes(bytes: Uint8Array): string {
  const ascii = (from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString('latin1');
  if (bytes.length === 0) return 'the file is empty';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'it is a WebP image, which the demo service does not decode';
  if (ascii(0, 4) === 'GIF8') return 'it is a GIF image, which the demo service does not decode';
  if (ascii(0, 2) === 'BM') return 'it is a BMP image, which the demo service does not decode';
  if (ascii(4, 8) === 'ftyp') return 'it is an ISO media file (HEIC/AVIF/MP4), which the demo service does not decode';
  const head = Buffer.from(bytes.subarray(0, 8))
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1 ');
  return `it starts with bytes ${head}, which are neither PNG (89 50 4E 47) nor JPEG (FF D8 FF)`;
}

function pngDimensions(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 24) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

function checkPixels(width: number, height: number): void {
  if (width <= 0 || height <= 0) throw new ImageDecodeError(`the image has no pixels (${width}x${height})`);
  if (width * height > MAX_DECODE_PIXELS) {
    throw new ImageDecodeError(`the image is ${width}x${height}, above the ${MAX_DECODE_PIXELS / (1024 * 1024)} megapixel limit`);
  }
}

/** Decodes a PNG of any colour type and bit depth to 8-bit RGBA. */
export function decodePng(bytes: Uint8Array): RgbaImage {
  if (!isPng(bytes)) throw new ImageDecodeError(`Not a PNG image: ${describeBytes(bytes)}.`);
  const dims = pngDimensions(bytes);
  if (dims) checkPixels(dims.width, dims.height);
  let png: PNG;
  try {
    png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (error) {
    throw new ImageDecodeError(`Damaged PNG image: ${error instanceof Error ? error.message : String(error)}.`);
  }
  return { width: png.width, height: png.height, data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.byteLength) };
}

/** Decodes a baseline or progressive JPEG to RGBA (alpha 255). */
export function decodeJpeg(bytes: Uint8Array): RgbaImage {
  if (!isJpeg(bytes)) throw new ImageDecodeError(`Not a JPEG image: ${describeBytes(bytes)}.`);
  try {
    const out = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: MAX_DECODE_PIXELS / (1024 * 1024),
      maxMemoryUsageInMB: 1024,
    });
    checkPixels(out.width, out.height);
    return { width: out.width, height: out.height, data: out.data };
  } catch (error) {
    if (error instanceof ImageDecodeError) throw error;
    throw new ImageDecodeError(`Damaged JPEG image: ${error instanceof Error ? error.message : String(error)}.`);
  }
}

/** Decodes PNG or JPEG by magic bytes; anything else is an ImageDecodeError naming what it saw. */
export function decodeImage(bytes: Uint8Array): RgbaImage {
  if (isPng(bytes)) return decodePng(bytes);
  if (isJpeg(bytes)) return decodeJpeg(bytes);
  throw new ImageDecodeError(`Not an image the demo service can read: ${describeBytes(bytes)}.`);
}

export interface EncodePngOptions {
  /** Keep the alpha channel (colour type 6); default false writes RGB like the real SaveImage. */
  alpha?: boolean;
  /** zlib level 0-9; the real server uses 4 for outputs and 1 for previews. */
  compressionLevel?: number;
  /** Text chunks (keyword -> text), e.g. { prompt: '<workflow JSON>' }. */
  text?: Record<string, string>;
}

export function encodePng(image: RgbaImage, options: EncodePngOptions = {}): Uint8Array {
  const png = new PNG({ width: image.width, height: image.height });
  png.data = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  const encoded = PNG.sync.write(png, {
    colorType: options.alpha ? 6 : 2,
    inputColorType: 6,
    inputHasAlpha: true,
    deflateLevel: options.compressionLevel ?? 4,
  });
  const bytes = new Uint8Array(encoded.buffer, encoded.byteOffset, encoded.byteLength);
  return options.text ? withTextChunks(bytes, options.text) : bytes;
}

/** JPEG (quality 1-100); previews on the real server are JPEG at quality 95. */
export function encodeJpeg(image: RgbaImage, quality = 90): Uint8Array {
  const out = jpeg.encode({ width: image.width, height: image.height, data: image.data }, quality);
  return new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.byteLength);
}

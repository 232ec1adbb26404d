// Opening the image to paint on, in the browser. PNGs with transparency are decoded in JS
// (fast-png): a canvas would premultiply alpha and lose the original's colours where alpha is 0,
// which is exactly where a re-opened mask was painted. Everything else is decoded by the browser.
// Not imported by the Node tests (it needs the DOM); the pure parts live in png.ts.
import { coverageFromAlpha, decodePngRgba, hasTransparentPixel, isPng, makeOpaque, pngHasAlpha, pngSize } from './png';
import type { MaskSource } from './upload';

/** The cloud's limits (PROTOCOL.md): larger images would be refused on upload anyway. */
export const MAX_EDGE = 16384;
export const MAX_PIXELS = 64 * 1024 * 1024;

export interface LoadedImage {
  width: number;
  height: number;
  /** Coverage restored from the image's own alpha (a masked image re-opened), or null. */
  alphaCoverage: Uint8Array | null;
  /** Draws the image's colours, opaque, onto a canvas of its size. */
  draw(canvas: HTMLCanvasElement): void;
  /** Frees the decoded pixels. */
  close(): void;
}

export class ImageOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageOpenError';
  }
}

function checkSize(width: number, height: number): void {
  if (width < 1 || height < 1) throw new ImageOpenError('The image has no pixels.');
  if (width > MAX_EDGE || height > MAX_EDGE || width * height > MAX_PIXELS) {
    throw new ImageOpenError(`The image is ${width}x${height} pixels; masks can be painted on images of up to ${MAX_EDGE} pixels per edge and 64 megapixels.`);
  }
}

/** The MIME type from the bytes themselves when they say (the file's own type may be missing). */
export function sniffMime(bytes: Uint8Array, fallback: string): string {
  if (isPng(bytes)) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length > 12 && String.fromCharCode(...bytes.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...bytes.subarray(8, 12)) === 'WEBP')
    return 'image/webp';
  return fallback;
}

export async function loadImage(bytes: Uint8Array, mime: string): Promise<LoadedImage> {
  if (isPng(bytes) && pngHasAlpha(bytes)) {
    const size = pngSize(bytes);
    if (size) checkSize(size.width, size.height);
    let decoded;
    try {
      decoded = decodePngRgba(bytes);
    } catch (error) {
      throw new ImageOpenError(`The PNG could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    const alphaCoverage = hasTransparentPixel(decoded) ? coverageFromAlpha(decoded) : null;
    let rgba: Uint8Array | null = makeOpaque(decoded).data;
    return {
      width: decoded.width,
      height: decoded.height,
      alphaCoverage,
      draw(canvas) {
        if (!rgba) return;
        const context = canvas.getContext('2d');
        const pixels = new Uint8ClampedArray(rgba.buffer as ArrayBuffer, rgba.byteOffset, rgba.byteLength);
        context?.putImageData(new ImageData(pixels, decoded.width, decoded.height), 0, 0);
      },
      close() {
        rgba = null;
      },
    };
  }
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: sniffMime(bytes, mime) }));
  } catch {
    throw new ImageOpenError('The file could not be opened as an image (PNG, JPEG or WebP).');
  }
  try {
    checkSize(bitmap.width, bitmap.height);
  } catch (error) {
    bitmap.close();
    throw error;
  }
  return {
    width: bitmap.width,
    height: bitmap.height,
    alphaCoverage: null,
    draw(canvas) {
      canvas.getContext('2d')?.drawImage(bitmap, 0, 0);
    },
    close() {
      bitmap.close();
    },
  };
}

/** An image picked from disk: not on the server yet. */
export async function sourceFromFile(file: File): Promise<MaskSource> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  return { name: file.name || 'image.png', bytes, mime: sniffMime(bytes, file.type || 'application/octet-stream'), serverRef: null };
}

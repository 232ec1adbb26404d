// The mask upload's image work, as the local server does it: open the original (PNG or JPEG) as
// RGBA, replace its alpha with the ALPHA channel of the uploaded mask (the mask's RGB is ignored;
// a mask without alpha counts as opaque), and save the result as PNG. Masks of another size are
// scaled to the original's with nearest-neighbour sampling. Used by the demo's /upload/mask, and
// by the v2 client and the upload step, which compose locally because Comfy API v2 has no mask upload.
import { readFile, writeFile } from 'node:fs/promises';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);

export class ImageDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageDecodeError';
  }
}

/** Decodes a PNG or JPEG into 8-bit RGBA. */
export function decodeImage(bytes: Buffer): Rgba {
  try {
    if (bytes.subarray(0, 4).equals(PNG_MAGIC)) {
      const png = PNG.sync.read(bytes);
      return { width: png.width, height: png.height, data: new Uint8Array(png.data) };
    }
    if (bytes.subarray(0, 3).equals(JPEG_MAGIC)) {
      const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 1024 });
      return { width: img.width, height: img.height, data: img.data };
    }
  } catch (error) {
    throw new ImageDecodeError(`cannot decode image: ${error instanceof Error ? error.message : String(error)}`);
  }
  throw new ImageDecodeError('not a PNG or JPEG image');
}

export function encodePng(image: Rgba): Buffer {
  const png = new PNG({ width: image.width, height: image.height });
  Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength).copy(png.data);
  return PNG.sync.write(png, { colorType: 6 });
}

/** The original's RGB with the mask's alpha. */
export function composeMask(original: Rgba, mask: Rgba): Rgba {
  const { width, height } = original;
  const out = new Uint8Array(original.data);
  for (let y = 0; y < height; y++) {
    const my = Math.min(mask.height - 1, Math.floor((y * mask.height) / height));
    for (let x = 0; x < width; x++) {
      const mx = Math.min(mask.width - 1, Math.floor((x * mask.width) / width));
      out[(y * width + x) * 4 + 3] = mask.data[(my * mask.width + mx) * 4 + 3]!;
    }
  }
  return { width, height, data: out };
}

/** Writes to `outPath` the PNG of the image at `originalPath` with the alpha of the mask at `maskPath`. */
export async function composeMaskFile(originalPath: string, maskPath: string, outPath: string): Promise<void> {
  const composed = composeMask(decodeImage(await readFile(originalPath)), decodeImage(await readFile(maskPath)));
  await writeFile(outPath, encodePng(composed));
}

// Preparing a mask file for /api/upload/mask. The server keeps the original's colours and takes
// the uploaded mask's ALPHA; loading it, mask = 1 - alpha, so transparent means masked.
// A PNG with an alpha channel is used as is. A PNG without one is read the way people draw masks,
// white = masked: its luminance becomes the inverse alpha.
import { readFile, writeFile } from 'node:fs/promises';
import { PNG } from 'pngjs';

export class MaskFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MaskFileError';
  }
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function hasAlphaChannel(png: PNG, bytes: Buffer): boolean {
  // Colour types 4 (grey+alpha) and 6 (RGBA) carry alpha; a tRNS chunk adds it to the others.
  const header = png as unknown as { alpha?: boolean; colorType?: number };
  return header.alpha === true || header.colorType === 4 || header.colorType === 6 || bytes.includes(Buffer.from('tRNS'));
}

/** Returns the path of a PNG whose alpha is the mask (0 where masked); writes `outPath` when converting. */
export async function prepareMaskPng(maskPath: string, outPath: string): Promise<{ path: string; converted: boolean; width: number; height: number }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(maskPath);
  } catch (error) {
    throw new MaskFileError(`Cannot read the mask file ${maskPath}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(PNG_MAGIC)) {
    throw new MaskFileError(`The mask ${maskPath} is not a PNG file. Save the mask as PNG (transparent or white = masked).`);
  }
  let png: PNG;
  try {
    png = PNG.sync.read(bytes);
  } catch (error) {
    throw new MaskFileError(`The mask ${maskPath} is a damaged PNG: ${error instanceof Error ? error.message : String(error)}.`);
  }
  if (hasAlphaChannel(png, bytes)) return { path: maskPath, converted: false, width: png.width, height: png.height };
  const out = new PNG({ width: png.width, height: png.height });
  const src = png.data;
  const dst = out.data;
  for (let i = 0; i < src.length; i += 4) {
    const luminance = Math.round(0.299 * src[i]! + 0.587 * src[i + 1]! + 0.114 * src[i + 2]!);
    dst[i] = 0;
    dst[i + 1] = 0;
    dst[i + 2] = 0;
    dst[i + 3] = 255 - luminance; // white (masked) -> transparent
  }
  await writeFile(outPath, PNG.sync.write(out, { colorType: 6 }));
  return { path: outPath, converted: true, width: png.width, height: png.height };
}

// The pixel size of an image about to be uploaded, from its header only (PNG, JPEG, GIF), so the
// server's limits are checked before a byte is sent. A header that does not tell (WebP, BMP, a
// JPEG whose frame marker lies beyond the first bytes) gives null, and the server decides.
import { open } from 'node:fs/promises';
import { sniffImage } from '@main/images/image-sniff';

/** Enough for a JPEG's metadata segments before its frame header (an EXIF thumbnail is at most 64 KiB). */
const HEAD_BYTES = 256 * 1024;

export async function readImageSize(filePath: string): Promise<{ width: number; height: number } | null> {
  const handle = await open(filePath, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    const image = sniffImage(buffer.subarray(0, bytesRead));
    if (!image || image.width === null || image.height === null) return null;
    return { width: image.width, height: image.height };
  } finally {
    await handle.close();
  }
}

// A small PNG data URL of an uploaded image, made in main (the renderer has no network and no file
// access). Decoding and the box-filter downscale are the library's thumbnail code; anything it cannot
// decode, or that is too large to decode safely, gets no thumbnail rather than an error: the upload
// itself has succeeded.
import { PNG } from 'pngjs';
import { decodeForThumbnail, downscale } from '@main/library/thumbnails';

export function thumbnailDataUrl(bytes: Uint8Array, maxEdge = 192): string | null {
  try {
    const image = decodeForThumbnail(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (!image) return null;
    const small = downscale(image, maxEdge);
    const png = new PNG({ width: small.width, height: small.height });
    png.data = Buffer.from(small.data.buffer, small.data.byteOffset, small.data.byteLength);
    return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
  } catch {
    return null;
  }
}

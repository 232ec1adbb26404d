// A small PNG data URL of an uploaded image, made in main (the renderer has no network and no file
// access). Decoding and scaling are the library's thumbnail pipeline (sharp); anything it cannot
// decode, or that is too large to decode safely, gets no thumbnail rather than an error: the upload
// itself has succeeded. PNG, not JPEG: a mask's transparent parts stay transparent.
import { thumbnailPipeline } from '@main/library/thumbnails';

export async function thumbnailDataUrl(bytes: Uint8Array, maxEdge = 192): Promise<string | null> {
  try {
    const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const pipeline = await thumbnailPipeline(input, input, maxEdge);
    if (!pipeline) return null;
    return `data:image/png;base64,${(await pipeline.png().toBuffer()).toString('base64')}`;
  } catch {
    return null;
  }
}

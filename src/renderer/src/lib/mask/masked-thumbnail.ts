// A small picture of an image with its painted mask taken out, for the image input's thumbnail
// after "Save mask": the image's pixels where it is kept and transparent where it was painted
// (as the server stores the masked file; the thumbnail shows a checkerboard through the holes, as
// the editor does). Made in the page from what the painter already holds: nothing is downloaded.
import { sniffMime } from './browser-image';

/** The thumbnail's longer edge in pixels (it is shown at about 96 px, twice that for sharp screens). */
const THUMBNAIL_EDGE = 192;

/** The thumbnail size for an image of `width` x `height`: fitted into THUMBNAIL_EDGE, never enlarged. */
function thumbnailSize(width: number, height: number, edge = THUMBNAIL_EDGE): { width: number; height: number } {
  const scale = Math.min(1, edge / Math.max(width, height, 1));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * A PNG data URL: `image` scaled down, transparent where `maskPng` is transparent (the painted
 * area). A data URL (a few kB at this size), so whoever shows it has nothing to release. Rejects
 * when either picture cannot be decoded.
 */
export async function maskedThumbnailDataUrl(image: { bytes: Uint8Array; mime: string }, maskPng: Uint8Array): Promise<string> {
  const picture = await createImageBitmap(new Blob([image.bytes as BlobPart], { type: sniffMime(image.bytes, image.mime) }));
  try {
    const mask = await createImageBitmap(new Blob([maskPng as BlobPart], { type: 'image/png' }), { premultiplyAlpha: 'none' });
    try {
      const { width, height } = thumbnailSize(picture.width, picture.height);
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      const context = canvas.getContext('2d');
      if (!context) throw new Error('no 2D canvas here');
      context.drawImage(picture, 0, 0, width, height);
      // Keeps the image only where the mask is opaque (not painted).
      context.globalCompositeOperation = 'destination-in';
      context.drawImage(mask, 0, 0, width, height);
      return canvas.toDataURL('image/png');
    } finally {
      mask.close();
    }
  } finally {
    picture.close();
  }
}

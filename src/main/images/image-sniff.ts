// Recognising an image from its first bytes (format, and size for PNG, JPEG and GIF), so the cloud
// demo can refuse images beyond its pixel limits and the client can check them before uploading,
// without decoding either.
import { CLOUD_UPLOAD_LIMITS, uploadLimitProblem } from './upload-limits';

export interface SniffedImage {
  format: 'png' | 'jpeg' | 'webp' | 'gif' | 'bmp' | 'tiff';
  width: number | null;
  height: number | null;
}

function jpegSize(head: Buffer): { width: number; height: number } | null {
  let i = 2;
  while (i + 9 < head.length) {
    if (head[i] !== 0xff) return null;
    const marker = head[i + 1]!;
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    const length = head.readUInt16BE(i + 2);
    // SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) are not frames.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: head.readUInt16BE(i + 5), width: head.readUInt16BE(i + 7) };
    }
    i += 2 + length;
  }
  return null;
}

export function sniffImage(head: Buffer): SniffedImage | null {
  if (head.length >= 24 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { format: 'png', width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
  }
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) {
    const size = jpegSize(head);
    return { format: 'jpeg', width: size?.width ?? null, height: size?.height ?? null };
  }
  const ascii = head.subarray(0, 12).toString('latin1');
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return { format: 'webp', width: null, height: null };
  if ((ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) && head.length >= 10)
    return { format: 'gif', width: head.readUInt16LE(6), height: head.readUInt16LE(8) };
  if (ascii.startsWith('BM')) return { format: 'bmp', width: null, height: null };
  if (ascii.startsWith('II*\0') || ascii.startsWith('MM\0*')) return { format: 'tiff', width: null, height: null };
  return null;
}

/** Why the cloud refuses this image's size, or null (the limits the client checks before uploading). */
export function cloudSizeProblem(image: SniffedImage): string | null {
  return uploadLimitProblem(
    { ...CLOUD_UPLOAD_LIMITS, maxBytes: Number.POSITIVE_INFINITY },
    { name: 'The image', bytes: 0, width: image.width, height: image.height },
  );
}

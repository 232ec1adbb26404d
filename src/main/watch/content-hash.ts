// One streaming read per file: its SHA-256 (the journal's key, so the same content under two
// names runs once) and, for inputs, whether it is a decodable image (image-check.ts).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { ImageInspector, type ImageVerdict } from './image-check';

export interface HashResult {
  sha256: string;
  size: number;
  image: ImageVerdict | null;
}

export async function hashFile(path: string, options: { inspect?: boolean; signal?: AbortSignal } = {}): Promise<HashResult> {
  const hash = createHash('sha256');
  const inspector = options.inspect ? new ImageInspector() : null;
  let size = 0;
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024, ...(options.signal ? { signal: options.signal } : {}) });
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    hash.update(bytes);
    inspector?.push(bytes);
  }
  return { sha256: hash.digest('hex'), size, image: inspector ? inspector.finish() : null };
}

/** The journal key of an input: its own hash, or (with a mask) a hash of both, so a new mask runs again. */
export function contentKeyOf(imageSha256: string, maskSha256: string | null): string {
  if (maskSha256 === null) return imageSha256;
  return createHash('sha256').update(`${imageSha256}:${maskSha256}`).digest('hex');
}

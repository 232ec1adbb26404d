// One streaming read per file: its SHA-256 (the journal's key, so the same content under two
// names runs once) and, for inputs, whether it is a decodable image (image-check.ts).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { ImageInspector, type ImageVerdict } from './image-check';

export interface HashResult {
  sha256: string;
  size: number;
  image: ImageVerdict | null;
}

/** Files up to this size are read in one call: a stream costs more round trips than the bytes. */
const WHOLE_READ_BYTES = 4 * 1024 * 1024;

export async function hashFile(path: string, options: { inspect?: boolean; signal?: AbortSignal; sizeHint?: number } = {}): Promise<HashResult> {
  const hash = createHash('sha256');
  const inspector = options.inspect ? new ImageInspector() : null;
  if (options.sizeHint !== undefined && options.sizeHint <= WHOLE_READ_BYTES) {
    // One read of the size the caller has just seen, and one byte more: no fstat to learn the size
    // (readFile's). A file that grew or shrank meanwhile hashes what was read; the caller's stamp
    // check after hashing sees the new size and settles it again.
    options.signal?.throwIfAborted();
    const handle = await open(path, 'r');
    let bytes: Buffer;
    try {
      const buffer = Buffer.allocUnsafe(options.sizeHint + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      bytes = buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    hash.update(bytes);
    inspector?.push(bytes);
    return { sha256: hash.digest('hex'), size: bytes.length, image: inspector ? inspector.finish() : null };
  }
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

// Content hashes as Comfy API v2 writes them ("blake3:<64 hex>"), computed the way the server
// does: BLAKE3 over the file's bytes, streamed from disk so a large input is never held whole.
// Shared by the v2 client (dedup before upload) and the demo service (its asset store).
import { createReadStream } from 'node:fs';
import { blake3 } from '@noble/hashes/blake3';

export const HASH_PREFIX = 'blake3:';
const HASH_PATTERN = /^blake3:[0-9a-f]{64}$/;

/** Whether `value` is a well-formed v2 content hash (lowercase hex, 32 bytes). */
export function isBlake3Hash(value: string): boolean {
  return HASH_PATTERN.test(value);
}

export function blake3OfBytes(bytes: Uint8Array): string {
  return HASH_PREFIX + Buffer.from(blake3(bytes)).toString('hex');
}

/** The v2 hash of a file on disk, read in chunks. */
export async function blake3OfFile(path: string, signal?: AbortSignal): Promise<string> {
  const hasher = blake3.create({});
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024, ...(signal ? { signal } : {}) });
  for await (const chunk of stream) hasher.update(chunk as Buffer);
  return HASH_PREFIX + Buffer.from(hasher.digest()).toString('hex');
}

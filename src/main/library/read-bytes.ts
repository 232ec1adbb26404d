// The first bytes of an open file in one buffer: what the import copies through memory and what a
// thumbnail decodes from, read with as few calls as the kernel allows (one, for a local file).
import type { FileHandle } from 'node:fs/promises';

/** Reads `length` bytes from the start of `handle`; fewer when the file is shorter (or shrank meanwhile). */
export async function readBytes(handle: FileHandle, length: number): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(bytes, filled, length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return bytes.subarray(0, filled);
}

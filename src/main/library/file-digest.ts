// The identity of a downloaded file: its sha256 and size, plus its first bytes for the media
// probe, computed in one streaming read (a multi-gigabyte video is never held in memory).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

export interface FileDigest {
  sha256: string;
  size: number;
  head: Buffer;
}

/** Reads `file` from its start: a path, or a handle the caller keeps open (and closes). */
export async function digestFile(file: string | FileHandle, headBytes: number, signal?: AbortSignal): Promise<FileDigest> {
  const hash = createHash('sha256');
  const headParts: Buffer[] = [];
  let headLength = 0;
  let size = 0;
  const options = { highWaterMark: 1 << 20, ...(signal ? { signal } : {}) };
  const stream = typeof file === 'string' ? createReadStream(file, options) : file.createReadStream({ ...options, start: 0, autoClose: false });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
    if (headLength < headBytes) {
      const part = chunk.subarray(0, headBytes - headLength);
      headParts.push(part);
      headLength += part.length;
    }
  }
  return { sha256: hash.digest('hex'), size, head: Buffer.concat(headParts) };
}

// The identity of a downloaded file: its sha256 and size, plus its first bytes for the media
// probe, computed in one streaming read (a multi-gigabyte video is never held in memory).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export interface FileDigest {
  sha256: string;
  size: number;
  head: Buffer;
}

export async function digestFile(path: string, headBytes: number, signal?: AbortSignal): Promise<FileDigest> {
  const hash = createHash('sha256');
  const headParts: Buffer[] = [];
  let headLength = 0;
  let size = 0;
  const stream = createReadStream(path, { highWaterMark: 1 << 20, ...(signal ? { signal } : {}) });
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

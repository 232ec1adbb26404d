// Reads a response body with a size cap (limits.ts). A server that sends more than the cap gets
// its connection cut at the cap: nothing is ever read into memory without bound.
import type { Readable } from 'node:stream';
import { ServiceError } from './errors';
import { formatBytes } from './limits';

/** 'fail': more than the cap is an error (answers that must be whole). 'truncate': keep the start (error bodies). */
export type OverCap = 'fail' | 'truncate';

export function tooLarge(maxBytes: number, what: string): ServiceError {
  return new ServiceError('too_large', `The server sent more than ${formatBytes(maxBytes)} for ${what}; stopped reading it.`, { retryable: false });
}

/** The body of a web Response as bytes, at most `maxBytes` (images: a thumbnail, never decoded as text). */
export async function readWebBytesCapped(response: Response, maxBytes: number, what: string, overCap: OverCap): Promise<Buffer> {
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    chunks.push(value);
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      if (overCap === 'fail') throw tooLarge(maxBytes, what);
      break;
    }
  }
  return Buffer.concat(chunks, Math.min(total, maxBytes));
}

/** The body of a web Response as text, at most `maxBytes`. */
export async function readWebBodyCapped(response: Response, maxBytes: number, what: string, overCap: OverCap): Promise<string> {
  return (await readWebBytesCapped(response, maxBytes, what, overCap)).toString('utf8');
}

/** A Node body (node:http) as bytes, at most `maxBytes`; the stream is destroyed at the cap. */
export async function readNodeBodyCapped(body: Readable, maxBytes: number, what: string, overCap: OverCap): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    chunks.push(buffer);
    if (total > maxBytes) {
      body.destroy();
      if (overCap === 'fail') throw tooLarge(maxBytes, what);
      break;
    }
  }
  return Buffer.concat(chunks, Math.min(total, maxBytes)).subarray(0, maxBytes);
}

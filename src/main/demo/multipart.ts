// Receiving a multipart upload without holding it in memory: busboy streams the file part to a
// temporary file (hashing it on the way), and collects the text fields, whichever order they come in.
import busboy from 'busboy';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';

export interface ReceivedFile {
  /** The file name as the client sent it (directories kept, so they can be refused). */
  filename: string;
  tmpPath: string;
  size: number;
  sha256: string;
  /** The first bytes, for sniffing the format. */
  head: Buffer;
}

export type MultipartResult = { kind: 'ok'; fields: Record<string, string>; file: ReceivedFile | null } | { kind: 'too_large' } | { kind: 'bad_request' };

const HEAD_BYTES = 64 * 1024;

export async function receiveMultipart(req: IncomingMessage, options: { fileField: string; tmpDir: string; maxFileBytes: number }): Promise<MultipartResult> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      preservePath: true,
      defParamCharset: 'utf8',
      limits: { fileSize: options.maxFileBytes, fields: 100, fieldSize: 1024 * 1024 },
    });
  } catch {
    req.resume();
    return { kind: 'bad_request' };
  }

  const fields: Record<string, string> = {};
  let file: ReceivedFile | null = null;
  let tooLarge = false;
  const writes: Promise<void>[] = [];
  const tmpPaths: string[] = [];

  parser.on('field', (name, value) => {
    if (!(name in fields)) fields[name] = value;
  });
  parser.on('file', (name, stream, info) => {
    if (name !== options.fileField || file !== null || writes.length > 0) {
      stream.resume();
      return;
    }
    const tmpPath = join(options.tmpDir, `upload-${randomBytes(8).toString('hex')}`);
    tmpPaths.push(tmpPath);
    const hash = createHash('sha256');
    const headChunks: Buffer[] = [];
    let headSize = 0;
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      hash.update(chunk);
      if (headSize < HEAD_BYTES) {
        headChunks.push(chunk.subarray(0, HEAD_BYTES - headSize));
        headSize += Math.min(chunk.length, HEAD_BYTES - headSize);
      }
    });
    stream.on('limit', () => {
      tooLarge = true;
    });
    const out = createWriteStream(tmpPath);
    stream.pipe(out);
    writes.push(
      new Promise<void>((resolve, reject) => {
        out.on('finish', () => {
          file = { filename: info.filename ?? '', tmpPath, size, sha256: hash.digest('hex'), head: Buffer.concat(headChunks) };
          resolve();
        });
        out.on('error', reject);
        stream.on('error', reject);
      }),
    );
  });

  const cleanup = async (): Promise<void> => {
    await Promise.all(tmpPaths.map((p) => rm(p, { force: true })));
  };

  try {
    await new Promise<void>((resolve, reject) => {
      parser.on('close', () => resolve());
      parser.on('error', reject);
      req.on('error', reject);
      req.pipe(parser);
    });
    await Promise.all(writes);
  } catch {
    await Promise.allSettled(writes);
    await cleanup();
    return { kind: 'bad_request' };
  }
  if (tooLarge) {
    await cleanup();
    return { kind: 'too_large' };
  }
  return { kind: 'ok', fields, file };
}

/** Deletes a received file that was not kept. */
export async function discard(file: ReceivedFile | null): Promise<void> {
  if (file) await rm(file.tmpPath, { force: true });
}

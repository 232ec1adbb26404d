// Streaming a file from disk as the body of an answer, with its length, never reading it whole.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';

/** The size of a regular file, or null when there is none at `path`. */
export async function regularFileSize(path: string): Promise<number | null> {
  try {
    const st = await stat(path);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}

export async function sendFile(req: IncomingMessage, res: ServerResponse, path: string, size: number, headers: Record<string, string>): Promise<void> {
  res.writeHead(200, { ...headers, 'Content-Length': String(size) });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  try {
    await pipeline(createReadStream(path), res);
  } catch {
    // The client went away mid-download, or the file vanished: nothing more can be said on this answer.
    res.destroy();
  }
}

// Writing answers the way each kind of server does. The local server (aiohttp) answers JSON as
// `application/json; charset=utf-8` in Python's spacing, empty answers as a 0-byte
// `application/octet-stream`, and failures as aiohttp's plain-text pages; the cloud answers errors
// as `{code, message}`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { stringifyJsonExact, parseJsonExact, type JsonValue } from '@shared/json';
import { pyJsonDumps } from './py-json';
import type { DemoFlavour } from './types';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const LOCAL_500_TEXT = '500 Internal Server Error\n\nServer got itself in trouble';

export function encodeJson(flavour: DemoFlavour, value: unknown): string {
  return flavour === 'local' ? pyJsonDumps(value) : stringifyJsonExact(value);
}

export function sendJson(res: ServerResponse, flavour: DemoFlavour, status: number, value: unknown): void {
  const body = Buffer.from(encodeJson(flavour, value), 'utf8');
  res.writeHead(status, { 'Content-Type': JSON_CONTENT_TYPE, 'Content-Length': String(body.length) });
  res.end(body);
}

/** aiohttp's `web.Response(status=N)`: no body, octet-stream. */
export function sendEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'Content-Length': '0', 'Content-Type': 'application/octet-stream' });
  res.end();
}

export function sendText(res: ServerResponse, status: number, text: string, contentType = 'text/plain; charset=utf-8'): void {
  const body = Buffer.from(text, 'utf8');
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': String(body.length) });
  res.end(body);
}

export function sendCloudError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, 'cloud', status, { code, message });
}

/** An unexpected failure: aiohttp's text page locally, `{code, message}` on the cloud. */
export function sendServerError(res: ServerResponse, flavour: DemoFlavour): void {
  if (flavour === 'local') sendText(res, 500, LOCAL_500_TEXT);
  else sendCloudError(res, 500, 'internal_error', 'The server failed while handling the request.');
}

export function sendNotFound(res: ServerResponse, flavour: DemoFlavour): void {
  if (flavour === 'local') sendText(res, 404, '404: Not Found');
  else sendCloudError(res, 404, 'not_found', 'No such endpoint.');
}

export function sendMethodNotAllowed(res: ServerResponse, flavour: DemoFlavour): void {
  if (flavour === 'local') sendText(res, 405, '405: Method Not Allowed');
  else sendCloudError(res, 405, 'method_not_allowed', 'This method is not allowed on this endpoint.');
}

export class BodyTooLargeError extends Error {
  constructor(limit: number) {
    super(`request body larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** Reads a (small) request body; rejects past `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export type ParsedBody = { ok: true; value: JsonValue } | { ok: false };

/** Parses a JSON body keeping big integers exact. */
export function parseJsonBody(body: Buffer): ParsedBody {
  try {
    return { ok: true, value: parseJsonExact(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

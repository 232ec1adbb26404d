// Answers in Comfy API v2's shapes: JSON bodies, and every error in the one envelope
// `{error: {code, message, details}}`, with Retry-After where the description gives one.
import type { ServerResponse } from 'node:http';
import { JSON_CONTENT_TYPE } from '../http-util';

export function sendV2Json(res: ServerResponse, status: number, value: unknown): void {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  res.writeHead(status, { 'Content-Type': JSON_CONTENT_TYPE, 'Content-Length': String(body.length) });
  res.end(body);
}

export function sendV2Error(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  details: Record<string, unknown> | null = null,
  retryAfterSeconds?: number,
): void {
  const body = Buffer.from(JSON.stringify({ error: { code, message, details } }), 'utf8');
  const headers: Record<string, string> = { 'Content-Type': JSON_CONTENT_TYPE, 'Content-Length': String(body.length) };
  if (retryAfterSeconds !== undefined) headers['Retry-After'] = String(retryAfterSeconds);
  res.writeHead(status, headers);
  res.end(body);
}

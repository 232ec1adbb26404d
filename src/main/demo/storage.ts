// The storage host behind the cloud flavour's signed URLs: a second listener that serves a file
// for a valid, unexpired signature, and answers like an object store (403 with an XML error) for
// an expired or forged one. It must never see the API key: a request that carries X-API-Key (or
// Authorization, or a key anywhere in its URL) is counted and refused.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Accounts } from './auth';
import type { FaultState } from './faults';
import { contentTypeFor, type DataDirs } from './files';
import { regularFileSize, sendFile } from './send-file';
import type { UrlSigner } from './signed-urls';
import type { DemoStats } from './types';

function xmlError(res: ServerResponse, status: number, code: string, message: string): void {
  const body = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`, 'utf8');
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': String(body.length) });
  res.end(body);
}

export interface StorageDeps {
  signer: UrlSigner;
  files: DataDirs;
  stats: DemoStats;
  faults: FaultState;
  accounts: Accounts;
}

function carriesKey(req: IncomingMessage, accounts: Accounts): boolean {
  if (req.headers['x-api-key'] !== undefined || req.headers.authorization !== undefined) return true;
  let url = req.url ?? '';
  try {
    url = decodeURIComponent(url);
  } catch {
    // keep the raw form
  }
  return accounts.keys().some((key) => url.includes(key));
}

export async function handleStorageRequest(req: IncomingMessage, res: ServerResponse, deps: StorageDeps): Promise<void> {
  deps.stats.storageRequests += 1;
  if (deps.faults.responseDelayMs > 0) await new Promise((r) => setTimeout(r, deps.faults.responseDelayMs));
  const url = new URL(req.url ?? '/', 'http://storage.invalid');
  if (deps.faults.takeFailure(url.pathname + url.search)) return xmlError(res, 500, 'InternalError', 'We encountered an internal error. Please try again.');
  if (carriesKey(req, deps.accounts)) {
    deps.stats.storageRequestsWithKey += 1;
    return xmlError(res, 403, 'AccessDenied', 'Requests to storage must not carry credentials.');
  }
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return xmlError(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
  const verdict = deps.signer.verify(url.pathname, url.searchParams.get('expires'), url.searchParams.get('sig'));
  if (!verdict.ok) {
    if (verdict.reason === 'expired') return xmlError(res, 403, 'AccessDenied', 'Request has expired');
    return xmlError(res, 403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
  }
  const path = deps.files.pathOf(verdict.target.filename, '', verdict.target.area);
  const size = path === null ? null : await regularFileSize(path);
  if (path === null || size === null) return xmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
  await sendFile(req, res, path, size, { 'Content-Type': contentTypeFor(verdict.target.filename) });
}

// /api/v2/assets: upload (multipart, streamed to disk, hashed with blake3 as the server does),
// the dedup fast path (HEAD by-hash, POST from-hash), metadata with a fresh link, the bytes, and
// delete. Identical bytes are stored once (a hash-named input file) whatever name they came under.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAbsolute } from 'node:path';
import { blake3OfFile, isBlake3Hash } from '@main/service/v2/blake3';
import { isJsonObject } from '@shared/json';
import { contentTypeFor } from '../files';
import { parseJsonBody, readBody } from '../http-util';
import { discard, receiveMultipart } from '../multipart';
import { regularFileSize, sendFile } from '../send-file';
import { moveInto } from '../upload-store';
import { blobFileName, type AssetRecord } from './assets';
import { sendV2Error, sendV2Json } from './envelope';
import type { V2Surface } from './surface';

const MIN_EXPIRES_IN = 60;
const MAX_EXPIRES_IN = 604_800;

/** `photo.png` or `input/photo.png` (the prefix is stripped); null for a path that escapes or is absolute. */
function placementPath(raw: string | undefined): string | null {
  if (!raw || raw.includes('\0') || isAbsolute(raw) || raw.startsWith('\\')) return null;
  const path = raw.replace(/\\/g, '/').replace(/^input\//, '');
  if (path === '' || path.split('/').some((part) => part === '..' || part === '')) return null;
  return path;
}

function expiresAtOf(raw: unknown): number | null | 'bad' {
  if (raw === undefined || raw === null || raw === '') return null;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < MIN_EXPIRES_IN || seconds > MAX_EXPIRES_IN) return 'bad';
  return Date.now() + seconds * 1000;
}

export async function postAsset(req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null): Promise<void> {
  const core = v2.core;
  const received = await receiveMultipart(req, { fileField: 'file', tmpDir: core.files.incoming, maxFileBytes: core.maxUploadBytes });
  if (received.kind === 'too_large')
    return sendV2Error(res, 413, 'payload_too_large', `The file is larger than the ${Math.round(core.maxUploadBytes / 1e6)} MB upload limit.`);
  if (received.kind === 'bad_request')
    return sendV2Error(res, 422, 'invalid_request', 'Send the asset as multipart/form-data with the bytes in the "file" part.');
  const { fields, file } = received;
  try {
    if (!file) return sendV2Error(res, 422, 'invalid_request', 'The "file" part is missing.');
    const filePath = placementPath(fields.file_path);
    if (filePath === null)
      return sendV2Error(res, 422, 'invalid_request', '"file_path" is required and must be a relative path inside the input folder (e.g. photo.png).');
    const expiresAt = expiresAtOf(fields.expires_in);
    if (expiresAt === 'bad') return sendV2Error(res, 422, 'invalid_request', `"expires_in" must be whole seconds from ${MIN_EXPIRES_IN} to ${MAX_EXPIRES_IN}.`);
    const hash = await blake3OfFile(file.tmpPath);
    if (fields.expected_hash && fields.expected_hash !== hash) {
      return sendV2Error(res, 409, 'hash_mismatch', 'The uploaded bytes do not match expected_hash; no asset was created.', {
        expected: fields.expected_hash,
        actual: hash,
      });
    }
    v2.stats.assetUploads += 1;
    v2.stats.assetUploadBytes += file.size;
    const existing = v2.assets.byHash(hash, owner);
    if (existing) return sendV2Json(res, 200, v2.assetJson(existing, v2.originOf(req), false));
    const stored = blobFileName(hash, filePath);
    const dest = core.files.pathOf(stored, '', 'input');
    if (dest === null) return sendV2Error(res, 422, 'invalid_request', 'The file name cannot be stored.');
    const createdNew = (await regularFileSize(dest)) === null;
    if (createdNew) await moveInto(file.tmpPath, dest);
    const record = v2.assets.add({
      owner,
      hash,
      sizeBytes: file.size,
      contentType: fields.content_type || contentTypeFor(filePath),
      filePath,
      area: 'input',
      filename: stored,
      subfolder: '',
      expiresAt,
      jobId: null,
      nodeId: null,
    });
    sendV2Json(res, 201, v2.assetJson(record, v2.originOf(req), createdNew));
  } finally {
    await discard(file);
  }
}

export function headAssetByHash(req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null, hash: string): void {
  v2.stats.byHashChecks += 1;
  const found = isBlake3Hash(hash) && v2.assets.byHash(hash, owner) !== undefined;
  res.writeHead(found ? 200 : 404, { 'Content-Length': '0' });
  res.end();
}

export async function postAssetFromHash(req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null): Promise<void> {
  const parsed = parseJsonBody(await readBody(req, 64 * 1024));
  const body = parsed.ok && isJsonObject(parsed.value) ? parsed.value : null;
  if (!body || typeof body.hash !== 'string') return sendV2Error(res, 400, 'invalid_request', 'Send {"hash": "blake3:<hex>"} as JSON.');
  const existing = isBlake3Hash(body.hash) ? v2.assets.byHash(body.hash, owner) : undefined;
  if (!existing) return sendV2Error(res, 404, 'blob_not_found', 'No blob with this hash that you may use.');
  v2.stats.fromHash += 1;
  // An identical reference already exists: returned as it is (as the self-hosted proxy does).
  sendV2Json(res, 200, v2.assetJson(existing, v2.originOf(req), false));
}

export function getAsset(req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null, id: string): void {
  const record = v2.assets.get(id, owner);
  if (!record) return sendV2Error(res, 404, 'not_found', 'No asset with this id.');
  sendV2Json(res, 200, v2.assetJson(record, v2.originOf(req)));
}

export function deleteAsset(_req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null, id: string): void {
  if (!v2.assets.delete(id, owner)) return sendV2Error(res, 404, 'not_found', 'No asset with this id.');
  res.writeHead(204).end();
}

/** The bytes: served here on a v2-only deployment; a 302 to a fresh signed URL on the cloud. */
export async function getAssetContent(req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null, id: string): Promise<void> {
  const record: AssetRecord | undefined = v2.assets.get(id, owner);
  if (!record) return sendV2Error(res, 404, 'not_found', 'No asset with this id.');
  if (v2.mode === 'beside' && record.subfolder === '') {
    const url = v2.core.storageUrl() + v2.core.signer.sign({ area: record.area, filename: record.filename });
    res.writeHead(302, { Location: url, 'Content-Length': '0' }).end();
    return;
  }
  const path = v2.core.files.pathOf(record.filename, record.subfolder, record.area);
  const size = path === null ? null : await regularFileSize(path);
  if (path === null || size === null) return sendV2Error(res, 404, 'output_unavailable', 'The bytes of this asset are gone.');
  await sendFile(req, res, path, size, { 'Content-Type': record.contentType });
}

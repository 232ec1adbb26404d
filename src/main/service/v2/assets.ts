// Inputs as Comfy API v2 assets, sent once per server: the file is hashed (blake3, as the server
// hashes it; remembered per path, size and mtime so a file used by many jobs is read once), the
// server is asked whether it has those bytes (HEAD by-hash), and an asset is minted over them
// (from-hash) or, on a miss, the file is uploaded, streamed from disk, with expected_hash so the
// server verifies what it got. The asset of each hash is remembered per client (per server).
import { stat } from 'node:fs/promises';
import { UNKNOWN_MIME, mimeForFileName } from '@shared/media-types';
import { ServiceError } from '../errors';
import { jsonOf, type HttpTransport } from '../http';
import { multipartBody } from '../multipart';
import { blake3OfFile } from './blake3';
import { v2ErrorFor } from './errors';
import { assetSchema, type V2Asset } from './wire';

const HASHES_KEPT = 10_000;
/** blake3 of files by path, size and mtime: shared by every client (a pool hashes a file once). */
const fileHashes = new Map<string, string>();

async function hashOf(path: string, signal?: AbortSignal): Promise<{ hash: string; size: number }> {
  const info = await stat(path);
  const key = `${path}\u0000${info.size}\u0000${info.mtimeMs}`;
  let hash = fileHashes.get(key);
  if (hash === undefined) {
    hash = await blake3OfFile(path, signal);
    if (fileHashes.size >= HASHES_KEPT) fileHashes.delete(fileHashes.keys().next().value as string);
    fileHashes.set(key, hash);
  }
  return { hash, size: info.size };
}

export interface EnsuredAsset {
  asset: V2Asset;
  /** How the bytes got there: uploaded now, minted over bytes the server had, or remembered from earlier. */
  how: 'uploaded' | 'from-hash' | 'remembered';
}

export class AssetUploader {
  /** The asset minted for each hash on this server. */
  private readonly byHash = new Map<string, V2Asset>();

  constructor(
    private readonly http: HttpTransport,
    private readonly secret: () => Promise<string | null>,
    private readonly uploadTimeoutMs: (bytes: number) => number,
  ) {}

  async ensure(path: string, filePath: string, signal?: AbortSignal): Promise<EnsuredAsset> {
    const sig = signal ? { signal } : {};
    const { hash, size } = await hashOf(path, signal);
    const known = this.byHash.get(hash);
    if (known) return { asset: known, how: 'remembered' };
    const head = await this.http.request({
      method: 'HEAD',
      path: `/api/v2/assets/by-hash/${encodeURIComponent(hash)}`,
      what: `checking whether the server has ${filePath}`,
      ...sig,
    });
    if (head.status === 200) {
      const minted = await this.http.request({
        method: 'POST',
        path: '/api/v2/assets/from-hash',
        json: { hash, file_path: filePath },
        idempotent: true,
        what: `reusing ${filePath} on the server`,
        ...sig,
      });
      // A miss here (the blob went away since the check) falls through to an upload.
      if (minted.status !== 404) return { asset: this.remember(hash, await this.read(minted, `reusing ${filePath}`)), how: 'from-hash' };
    } else if (head.status !== 404) {
      throw v2ErrorFor(head, `checking whether the server has ${filePath}`, await this.secret());
    }
    const mime = mimeForFileName(filePath) ?? UNKNOWN_MIME;
    const form = async () =>
      multipartBody({ field: 'file', path, filename: filePath, contentType: mime, size }, { file_path: filePath, content_type: mime, expected_hash: hash });
    const what = `uploading ${filePath}`;
    // Identical bytes dedupe on the server, so a resend cannot store them twice.
    const answer = await this.http.request({
      method: 'POST',
      path: '/api/v2/assets',
      form,
      idempotent: true,
      timeoutMs: this.uploadTimeoutMs(size),
      what,
      ...sig,
    });
    return { asset: this.remember(hash, await this.read(answer, what)), how: 'uploaded' };
  }

  /** Forgets what this client minted (a missing_asset answer: the server lost it). */
  forget(): void {
    this.byHash.clear();
  }

  private remember(hash: string, asset: V2Asset): V2Asset {
    this.byHash.set(hash, asset);
    return asset;
  }

  private async read(answer: { status: number; headers: Headers; text: string }, what: string): Promise<V2Asset> {
    if (answer.status < 200 || answer.status > 299) throw v2ErrorFor(answer, what, await this.secret());
    const parsed = assetSchema.safeParse(jsonOf(answer));
    if (!parsed.success)
      throw new ServiceError('protocol', `The server's answer to ${what} is not an asset this client can read.`, { status: answer.status, retryable: false });
    return parsed.data;
  }
}

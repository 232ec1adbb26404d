// The v2 surface's asset records: UUID-identified records over content-addressed blobs (stored as
// input files named by their hash, so a LoadImage node reads them), scoped by account: an
// account may mint from a blob only when it has uploaded those bytes itself (a miss and "exists,
// not yours" look the same). Job outputs are assets too, over files in the output folder.
import { randomUUID } from 'node:crypto';
import { extname } from 'node:path';
import type { FileArea } from '../files';

export interface AssetRecord {
  id: string;
  owner: string | null;
  hash: string | null;
  sizeBytes: number;
  contentType: string;
  /** The path the client gave (uploads) or the output's file name. */
  filePath: string;
  /** Where the bytes are: a file of the demo's data folder. */
  area: FileArea;
  filename: string;
  subfolder: string;
  createdAt: number;
  expiresAt: number | null;
  jobId: string | null;
  /** The node that produced it (outputs), null for uploads. */
  nodeId: string | null;
}

/** Input file name of a blob: hash-addressed, keeping the extension so nodes can tell the format. */
export function blobFileName(hash: string, filePath: string): string {
  const ext = extname(filePath)
    .toLowerCase()
    .replace(/[^.a-z0-9]/g, '');
  return `${hash.slice('blake3:'.length, 'blake3:'.length + 24)}${ext}`;
}

export class AssetStore {
  private readonly byId = new Map<string, AssetRecord>();
  /** Per account, the hashes it may mint from, and the asset to answer with. */
  private readonly mintable = new Map<string | null, Map<string, string>>();

  get(id: string, owner: string | null): AssetRecord | undefined {
    const record = this.byId.get(id);
    return record && record.owner === owner ? record : undefined;
  }

  /** The caller's asset over `hash`, if it has uploaded those bytes. */
  byHash(hash: string, owner: string | null): AssetRecord | undefined {
    const id = this.mintable.get(owner)?.get(hash);
    return id === undefined ? undefined : this.byId.get(id);
  }

  /** `id`: the record's id when the surface mints its own kind (the proxy's output tokens); a UUID otherwise. */
  add(fields: Omit<AssetRecord, 'id' | 'createdAt'>, id: string = randomUUID()): AssetRecord {
    const record: AssetRecord = { ...fields, id, createdAt: Date.now() };
    this.byId.set(record.id, record);
    if (record.hash !== null && record.jobId === null) {
      let hashes = this.mintable.get(record.owner);
      if (!hashes) this.mintable.set(record.owner, (hashes = new Map()));
      if (!hashes.has(record.hash)) hashes.set(record.hash, record.id);
    }
    return record;
  }

  delete(id: string, owner: string | null): boolean {
    const record = this.get(id, owner);
    if (!record) return false;
    this.byId.delete(id);
    const hashes = this.mintable.get(owner);
    if (record.hash !== null && hashes?.get(record.hash) === id) hashes.delete(record.hash);
    return true;
  }
}

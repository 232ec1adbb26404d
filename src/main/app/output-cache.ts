// Output bytes for the renderer's thumbnails and players, served by main (the renderer has no
// network). Each file is downloaded once through the service client (which keeps the key off
// the storage host) into the cache folder of the data dir, then read from there.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UNKNOWN_MIME, mimeForFileName } from '@shared/media-types';
import { safeBaseName } from '@main/service/filenames';
import type { ServiceApi } from '@main/service/ports';
import type { FileRef } from '@main/service/types';
import { AppFailure } from './errors';

/** Larger files are not sent through IPC in one piece. */
const MAX_SERVED_BYTES = 512 * 1024 * 1024;

export class OutputCache {
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(private readonly dir: string) {}

  async fetch(api: ServiceApi, file: FileRef): Promise<{ mime: string; bytes: Uint8Array }> {
    const name = safeBaseName(file.filename, 'output');
    const id = createHash('sha256')
      .update(JSON.stringify([api.profile.baseUrl, file.type, file.subfolder, file.filename]))
      .digest('hex')
      .slice(0, 32);
    const folder = join(this.dir, id);
    const path = join(folder, name);
    if (!existsSync(path)) {
      let pending = this.inFlight.get(id);
      if (!pending) {
        pending = api.download(file, folder, { destName: name }).then((r) => r.path);
        this.inFlight.set(id, pending);
        void pending.finally(() => this.inFlight.delete(id)).catch(() => undefined);
      }
      await pending;
    }
    const info = await stat(path);
    if (info.size > MAX_SERVED_BYTES) throw new AppFailure('invalid_input', `${name} is larger than 512 MB and cannot be shown here.`);
    const buffer = await readFile(path);
    return { mime: mimeForFileName(name) ?? UNKNOWN_MIME, bytes: new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) };
  }
}

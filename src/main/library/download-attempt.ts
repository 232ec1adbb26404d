// One download attempt of one library item:
//   1. the service client streams the file into this process's staging folder (.incoming/...),
//      under a temporary name it renames only when complete (and fsynced);
//   2. the bytes are hashed (sha256) while they stream in, and the first ones kept for the probe
//      (type, size, duration): the file is never read back (a source that cannot hash while
//      streaming, such as a test double, gets one streaming read of the staged file instead);
//   3. if the library already holds the same bytes, the row points at that file and the download is
//      dropped; otherwise the file gets its final, safe name in the dated folder (publish-staged.ts).
// Whatever fails, the staging folder of the attempt is removed: no partial file reaches the library.
// `alsoWriteTo` (flowdeck run --out) gets tee copies written from the same network read.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { digestFile } from './file-digest';
import { PROBE_BYTES, probeMedia } from './media-info';
import { libraryFileName, placeStagedFile, type StagingContext } from './publish-staged';
import type { ItemRow } from './rows';
import type { DownloadSource } from './types';

export interface AttemptContext extends StagingContext {
  onProgress?: (received: number, total: number | null) => void;
  /** Fresh partial paths to write copies of the file to, from the same network read; the caller publishes them. */
  alsoWriteTo?: readonly string[];
}

export type AttemptOutcome = 'done' | 'row_gone';

export async function downloadAttempt(row: ItemRow, source: DownloadSource, ctx: AttemptContext, signal: AbortSignal): Promise<AttemptOutcome> {
  const work = path.join(ctx.stagingDir, `${row.id}-${randomBytes(4).toString('hex')}`);
  await fs.mkdir(work, { recursive: true });
  let settled = false;
  try {
    const ref = { filename: row.file_name, subfolder: row.file_subfolder, type: row.file_type };
    const downloaded = await source.download(ref, work, {
      signal,
      destName: 'download',
      overwrite: true,
      staging: true,
      digest: { headBytes: PROBE_BYTES },
      ...(ctx.alsoWriteTo?.length ? { alsoWriteTo: ctx.alsoWriteTo } : {}),
      ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
    });
    // The client reports the final path; it must be inside the staging folder we gave it.
    if (path.dirname(path.resolve(downloaded.path)) !== path.resolve(work)) throw new Error('The download was written outside its staging folder.');
    const digest = downloaded.digest ?? (await digestFile(downloaded.path, PROBE_BYTES, signal));
    const media = probeMedia(digest.head, digest.size, row.file_name, downloaded.contentType);
    const name = libraryFileName(row.file_name, row.node_class, media.mime);

    return await ctx.exclusive(digest.sha256, async () => {
      signal.throwIfAborted();
      const { done, published } = await placeStagedFile({ path: downloaded.path, name, digest, media, createdAt: row.created_at }, ctx);
      const updated = await ctx.index.markDone(row.id, done);
      if (!updated) {
        // Deleted while downloading: a file nobody points at must not stay behind.
        if (published) await fs.rm(published, { force: true });
        return 'row_gone';
      }
      settled = true;
      return 'done';
    });
  } finally {
    await fs.rm(work, { recursive: true, force: true }).catch(() => {});
    // A tee copy stands for the library's file: it is only left for the caller when that file is.
    if (!settled) await Promise.all((ctx.alsoWriteTo ?? []).map((file) => fs.rm(file, { force: true }).catch(() => {})));
  }
}

// Thumbnails of library items: a JPEG whose longer edge is at most the size asked (16..2048), made
// once per file and size under .thumbnails/ and shared by callers asking at once; removed with the
// last item that uses the file.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { THUMBNAIL_DIR } from './layout';
import { rowFilePath, type ItemRow } from './rows';
import { clampThumbnailSize, existingThumbnail, writeThumbnail } from './thumbnails';
import type { Thumbnail } from './types';

/** What thumbnails.ts decodes (the library's other images, BMP, AVIF, HEIC, show their type icon). */
const THUMBNAIL_MIMES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

export class ThumbnailCache {
  private readonly inFlight = new Map<string, Promise<Thumbnail | null>>();

  constructor(private readonly root: string) {}

  /** The item's thumbnail; null for items that are not a finished PNG, JPEG, WebP or GIF image. */
  of(row: ItemRow, maxSize: number): Promise<Thumbnail | null> {
    const size = clampThumbnailSize(maxSize);
    if (row.status !== 'done' || row.path === null || row.sha256 === null || row.media_kind !== 'image') return Promise.resolve(null);
    if (!THUMBNAIL_MIMES.has(row.mime ?? '')) return Promise.resolve(null);
    const source = rowFilePath(row, this.root);
    if (!source) return Promise.resolve(null);
    const target = path.join(this.root, THUMBNAIL_DIR, `${row.sha256}-${size}.jpg`);
    const key = `${row.sha256}-${size}`;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = (async (): Promise<Thumbnail | null> => {
        let made;
        try {
          made = (await existingThumbnail(target)) ?? (await writeThumbnail(source, target, size));
        } catch (error) {
          // The file was removed from the library folder by hand: no thumbnail, not a failure.
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
          throw error;
        }
        return made ? { path: made.path, mime: 'image/jpeg', width: made.width, height: made.height } : null;
      })();
      this.inFlight.set(key, pending);
      void pending.finally(() => this.inFlight.delete(key)).catch(() => undefined);
    }
    return pending;
  }

  /** Every thumbnail of a file (all sizes). */
  async removeAll(sha256: string): Promise<void> {
    const dir = path.join(this.root, THUMBNAIL_DIR);
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    await Promise.all(names.filter((n) => n.startsWith(`${sha256}-`)).map((n) => fs.rm(path.join(dir, n), { force: true })));
  }

  /** Waits for the thumbnails being made (before the library closes). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()]);
  }
}

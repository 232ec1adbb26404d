// Removing one library item: its index row, and its file (to the OS trash, or the library's own
// .trash) with its thumbnails, unless other items still use the same file.
import * as fs from 'node:fs/promises';
import type { DeleteResult } from './library-options';
import type { LibraryIndex } from './library-index';
import { rowFilePath } from './rows';
import type { ThumbnailCache } from './thumbnail-cache';
import { moveToTrash, type TrashFunction, type TrashPlace } from './trash';

export interface RemoveContext {
  index: LibraryIndex;
  root: string;
  trash: TrashFunction;
  log: (message: string) => void;
  thumbnails: ThumbnailCache;
}

/** Removes item `id` (the caller holds the library's exclusive section). */
export async function removeItem(id: number, ctx: RemoveContext): Promise<DeleteResult> {
  const row = await ctx.index.get(id);
  if (!row) return { removed: false, trash: null };
  let trash: TrashPlace | null = null;
  const references = row.status === 'done' && row.path !== null ? await ctx.index.pathReferences(row.root, row.path, ctx.root) : 0;
  if (references > 1) {
    const removed = await ctx.index.remove(id);
    return { removed, trash, sharedBy: references - 1 };
  }
  if (row.status === 'done' && row.path !== null) {
    const file = rowFilePath(row, ctx.root);
    const exists =
      file !== null &&
      (await fs.access(file).then(
        () => true,
        () => false,
      ));
    if (file && exists) trash = await moveToTrash(file, row.root ?? ctx.root, ctx.trash, ctx.log);
    if (row.sha256) await ctx.thumbnails.removeAll(row.sha256);
  }
  const removed = await ctx.index.remove(id);
  return { removed, trash };
}

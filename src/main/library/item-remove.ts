// Removing one library item: its index row, and its file (to the OS trash, or the library's own
// .trash) with its thumbnails, unless other items still use the same file. It runs inside the
// library's exclusive step of the item's bytes (keyed-exclusive.ts), so no arrival of the same
// bytes reuses the file while it goes to the trash.
import * as fs from 'node:fs/promises';
import type { KeyedExclusive } from './keyed-exclusive';
import type { DeleteResult } from './library-options';
import type { LibraryIndex } from './library-index';
import { rowFilePath, type ItemRow } from './rows';
import type { ThumbnailCache } from './thumbnail-cache';
import { moveToTrash, type TrashFunction, type TrashPlace } from './trash';

export interface RemoveContext {
  index: LibraryIndex;
  root: string;
  trash: TrashFunction;
  log: (message: string) => void;
  thumbnails: ThumbnailCache;
}

/** The key of an item's exclusive step: its bytes once it has a file, else the item itself. */
const keyOf = (id: number, row: { sha256: string | null } | null): string => row?.sha256 ?? `item:${id}`;

/**
 * Removes item `id` inside the exclusive step of its bytes; a row that gained its file (and so
 * its key) while the step was awaited is removed under the new key.
 */
export async function removeItem(id: number, ctx: RemoveContext, exclusive: KeyedExclusive): Promise<DeleteResult> {
  for (;;) {
    const key = keyOf(id, await ctx.index.get(id));
    const result = await exclusive.run(key, async () => {
      const row = await ctx.index.get(id);
      return keyOf(id, row) === key ? removeRow(id, row, ctx) : null;
    });
    if (result) return result;
  }
}

async function removeRow(id: number, row: ItemRow | null, ctx: RemoveContext): Promise<DeleteResult> {
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

// Library outputs as viewer items: the loaded items around the one opened (the viewer's arrow keys
// walk the grid's order), each shown from the library folder through the media URL.
import type { LibraryItemView } from '@shared/ipc/library-contract';
import type { LibraryStore } from '../library/library.svelte';
import type { MediaKind } from '../stores/outputs.svelte';
import type { ViewerItem } from './viewer.svelte';

/** How many loaded items on each side of the opened one the arrow keys reach. */
const REACH = 100;

function kindOf(item: LibraryItemView): MediaKind {
  return item.mediaKind === 'image' || item.mediaKind === 'video' || item.mediaKind === 'audio' ? item.mediaKind : 'file';
}

export function libraryViewerItem(library: LibraryStore, item: LibraryItemView): ViewerItem | null {
  const url = library.fileUrl(item);
  if (!url) return null;
  return { name: item.fileName, url, kind: kindOf(item), load: () => library.bytes(item.id), libraryId: item.id, output: null, input: null };
}

/** The viewer's items around result index `index`, and where the opened one is among them. */
export function libraryViewerItems(library: LibraryStore, index: number): { items: ViewerItem[]; at: number } {
  const items: ViewerItem[] = [];
  let at = 0;
  for (let i = Math.max(0, index - REACH); i <= Math.min(library.total - 1, index + REACH); i += 1) {
    const item = library.itemAt(i);
    const entry = item ? libraryViewerItem(library, item) : null;
    if (!entry) continue;
    if (i === index) at = items.length;
    items.push(entry);
  }
  return { items, at };
}

// Forwards the library's changes to the renderer as `library.changed` events. A download sends
// several updates per item within milliseconds (downloading, done) and a finished job adds its
// outputs one by one: they are coalesced into one event per window, with the latest state of
// each item, so the grid re-renders once instead of once per change.
import type { LibraryChangedView, LibraryItemView } from '@shared/ipc/library-contract';
import type { Library, LibraryChange } from '../library';
import { libraryItemView } from './library-views';

export const LIBRARY_EVENT_WINDOW_MS = 100;

export function forwardLibraryChanges(
  library: Pick<Library, 'onChange'>,
  emit: (payload: LibraryChangedView) => void,
  options: { windowMs?: number } = {},
): () => void {
  const windowMs = options.windowMs ?? LIBRARY_EVENT_WINDOW_MS;
  /** Items announced in this window, with whether they are new to the renderer. */
  const pending = new Map<number, { added: boolean; item: LibraryItemView }>();
  const removed = new Set<number>();
  let timer: ReturnType<typeof setTimeout> | null = null;

  const flush = (): void => {
    timer = null;
    if (pending.size === 0 && removed.size === 0) return;
    const payload: LibraryChangedView = { added: [], updated: [], removed: [...removed] };
    for (const { added, item } of pending.values()) (added ? payload.added : payload.updated).push(item);
    pending.clear();
    removed.clear();
    emit(payload);
  };

  const note = (change: LibraryChange): void => {
    if (change.type === 'removed') {
      // Added and removed within one window: the renderer never needs to hear of it.
      if (!pending.get(change.id)?.added) removed.add(change.id);
      pending.delete(change.id);
    } else {
      // An update may arrive after the removal (a row read just before the delete): ignore it.
      if (removed.has(change.item.id)) return;
      const added = change.type === 'added' || pending.get(change.item.id)?.added === true;
      pending.set(change.item.id, { added, item: libraryItemView(change.item) });
    }
    // The window starts at the first change and is not extended by later ones: a steady stream of
    // changes still reaches the renderer every windowMs.
    timer ??= setTimeout(flush, windowMs);
  };

  const unsubscribe = library.onChange(note);
  return () => {
    unsubscribe();
    if (timer !== null) clearTimeout(timer);
    timer = null;
    pending.clear();
    removed.clear();
  };
}

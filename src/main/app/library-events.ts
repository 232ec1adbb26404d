// Forwards the library's changes to the renderer as `library.changed` events.
import type { LibraryChangedView } from '../../shared/ipc/library-contract';
import type { Library } from '../library';

export function forwardLibraryChanges(_library: Library, _emit: (payload: LibraryChangedView) => void): () => void {
  return () => undefined;
}

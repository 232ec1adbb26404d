// The outputs library's contract calls (library.*), over the Library of src/main/library.
import type { CallHandlers } from '../../shared/ipc/contract';
import type { libraryCalls } from '../../shared/ipc/library-contract';
import type { Library } from '../library';
import type { DesktopActions } from './desktop';
import { AppFailure } from './errors';

export type LibraryCallName = keyof typeof libraryCalls;

export interface LibraryHandlerContext {
  /** The open library; throws while the app is starting. */
  library(): Library;
  desktop: DesktopActions | null;
  /** Base of the media URLs the renderer builds (library-media.ts). */
  mediaBase: string;
}

export function createLibraryHandlers(_ctx: LibraryHandlerContext): Pick<CallHandlers, LibraryCallName> {
  const todo = async (): Promise<never> => {
    throw new AppFailure('internal', 'The library view is being built.');
  };
  return {
    'library.info': todo,
    'library.list': todo,
    'library.facets': todo,
    'library.get': todo,
    'library.delete': todo,
    'library.retry': todo,
    'library.bytes': todo,
    'library.reveal': todo,
  };
}

// The outputs library's public API: import from here, not from the individual modules.
export { Library } from './library';
export { libraryDirFromSettings, resolveLibraryDir } from './library-dir';
export { copyOutOfLibrary } from './copy-out';
export { containedRealPath } from './item-file';
export { LIBRARY_MIGRATIONS } from './schema';
export { ftsQuery } from './search-match';
export type { TrashFunction } from './trash';
export {
  MEDIA_KINDS,
  type DownloadSource,
  type LibraryChange,
  type LibraryItem,
  type LibraryServer,
  type ListFilter,
  type MediaKind,
  type RecordContext,
} from './types';

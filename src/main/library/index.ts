// The outputs library's public API: import from here, not from the individual modules.
export { Library, DEFAULT_LIBRARY_RETRY, type LibraryOptions, type DeleteResult } from './library';
export { resolveLibraryDir } from './library-dir';
export { copyOutOfLibrary } from './copy-out';
export { containedRealPath, type ContainedFile } from './item-file';
export { LIBRARY_MIGRATIONS, LIBRARY_MODULE } from './schema';
export { ftsQuery } from './library-index';
export { probeMedia, type MediaInfo } from './media-info';
export { provenanceOf, type Provenance } from './provenance';
export { osTrash, type TrashFunction, type TrashPlace } from './trash';
export {
  ITEM_STATUSES,
  MEDIA_KINDS,
  SourceUnavailableError,
  type DownloadSource,
  type ItemStatus,
  type LibraryChange,
  type LibraryItem,
  type LibraryRetryPolicy,
  type LibraryServer,
  type ListFilter,
  type MediaKind,
  type RecordContext,
  type RecordJob,
  type SourceResolver,
  type Thumbnail,
} from './types';

// The last step of every file that enters the library, whether downloaded or copied in from a hot
// folder: a complete, hashed and probed file in this library's staging folder either turns out to be
// bytes the library already holds (the row then points at that file and the staged one is dropped
// with its staging folder), or gets its final, safe name in the dated folder. Run it inside the
// library's exclusive step for those bytes, so two arrivals of the same bytes keep one file.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { extensionForMime, mimeForFileName } from '@shared/media-types';
import { safeBaseName } from '@main/service/filenames';
import type { FileDigest } from './file-digest';
import { publishFile, syncDirectory } from '@main/files/publish';
import { absolutePath, datedFolder, relativePath } from './layout';
import type { DoneFields, LibraryIndex } from './library-index';
import { kindOfMime, type MediaInfo } from './media-info';

/**
 * The name a file gets in the library: the server's, made safe, with the usual extension of its
 * probed type when the name has no media extension of its own.
 */
export function libraryFileName(serverName: string, nodeClass: string | null, mime: string | null): string {
  const name = safeBaseName(serverName, nodeClass ? `${nodeClass} output` : 'output');
  const ext = mime ? extensionForMime(mime) : null;
  if (ext && kindOfMime(mimeForFileName(name)) === 'other' && !name.toLowerCase().endsWith(`.${ext}`)) return `${name}.${ext}`;
  return name;
}

/** What every way into the library (a download, an import) works with. */
export interface StagingContext {
  root: string;
  /** This Library instance's folder under .incoming/. */
  stagingDir: string;
  index: LibraryIndex;
  now: () => number;
  /**
   * Runs the dedupe-and-publish step alone among the steps of the same `key` (the bytes' sha256),
   * so two arrivals of the same bytes keep one file (see keyed-exclusive.ts).
   */
  exclusive: <T>(key: string, task: () => Promise<T>) => Promise<T>;
}

export interface StagedFile {
  /** The complete file in the staging folder. */
  path: string;
  /** Its name in the library (libraryFileName). */
  name: string;
  digest: Pick<FileDigest, 'sha256' | 'size'>;
  media: MediaInfo;
  /** When the job ran (epoch ms): decides the dated folder. */
  createdAt: number;
}

export interface PlacedFile {
  /** What to mark the item done with. */
  done: DoneFields;
  /** The file this step published, or null when an existing file with the same bytes was reused. */
  published: string | null;
}

async function fileHasSize(file: string, size: number): Promise<boolean> {
  const info = await fs.stat(file).catch(() => null);
  return info !== null && info.isFile() && info.size === size;
}

/** Dedupes by sha256 or publishes the staged file; the caller marks its item done with `done`. */
export async function placeStagedFile(staged: StagedFile, ctx: Pick<StagingContext, 'root' | 'index' | 'now'>): Promise<PlacedFile> {
  const { root, index } = ctx;
  const { digest, media } = staged;
  let relative: string | null = null;
  const existing = await index.pathForHash(digest.sha256, root);
  const existingPath = existing === null ? null : absolutePath(root, existing);
  // The same bytes are already in the library (and the file is still there): keep one copy.
  if (existing !== null && existingPath !== null && (await fileHasSize(existingPath, digest.size))) relative = existing;
  let published: string | null = null;
  if (relative === null) {
    const dir = path.join(root, ...datedFolder(staged.createdAt).split('/'));
    published = await publishFile(staged.path, dir, staged.name);
    await syncDirectory(dir);
    relative = relativePath(root, published);
  }
  const done: DoneFields = {
    sha256: digest.sha256,
    root,
    path: relative,
    size: digest.size,
    mime: media.mime,
    mediaKind: media.kind,
    width: media.width,
    height: media.height,
    durationMs: media.durationMs,
    completedAt: ctx.now(),
  };
  return { done, published };
}

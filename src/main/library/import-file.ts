// An output that is already on disk (a hot folder downloaded it into its output folder) enters the
// library by copy, never by a second download:
//   1. nothing to do when the library already holds that output done (a restart, or the app
//      recorded and downloaded it first): only the input file is noted on the item;
//   2. the library's own copy of the file is in its staging folder: written by the download from the
//      same network read (`staged.path`, a tee), or made here, by reflink (no bytes written) when
//      the download's digest is known, else by a copy: a file up to IN_MEMORY_COPY_BYTES (an image)
//      is read once into memory, hashed and probed there and written from those bytes; a larger one
//      is copied, then hashed and probed in one streaming read of the copy. Either way what is
//      indexed is exactly what is published, even if the original changes meanwhile;
//   3. alone (the library's exclusive step, shared with downloads): the same bytes already in the
//      library are reused, otherwise the copy gets its final, safe name in the dated folder; the
//      item (new, or pending because the app recorded it) is indexed as done with the job's
//      provenance and `source_file`.
// Idempotent by the library's unique key (base_url, prompt_id, file_type, file_subfolder, file_name).
import { createHash } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { stringifyJsonExact } from '@shared/json';
import type { OutputFile, Workflow } from '@main/service/types';
import { partialPathFor } from '@main/files/publish';
import { reflinkCopy } from '@main/files/reflink';
import { digestFile, type FileDigest } from './file-digest';
import type { LibraryIndex, NewItemRow } from './library-index';
import { PROBE_BYTES, guessKind, probeMedia } from './media-info';
import { readBytes } from './read-bytes';
import { nodeClassOf, provenanceOf } from './provenance';
import { libraryFileName, placeStagedFile, type StagingContext } from './publish-staged';
import { toItem, type ItemRow } from './rows';
import type { LibraryChange, LibraryItem, LibraryServer } from './types';

/** One output file on disk and the job it came from. */
export interface ImportFileRequest {
  /** Absolute path of the file; it is copied, never moved. */
  path: string;
  promptId: string;
  server: LibraryServer;
  /** The server's reference of the file (its identity in the library). */
  file: OutputFile;
  /** The workflow exactly as submitted. */
  workflow: Workflow | null;
  workflowName: string | null;
  /** The input file the output was made from (a hot folder's), or null. */
  sourceFile: string | null;
  /** When the job ran (epoch ms); default now. Decides the dated folder. */
  createdAt?: number;
  /**
   * What the download already did: `digest`, the file's identity taken while it streamed, and
   * `path`, the library's own tee copy in its staging folder (Library.stagingFileFor), or null.
   */
  staged?: { path: string | null; digest: FileDigest };
}

export interface ImportContext extends StagingContext {
  emit: (change: LibraryChange) => void;
}

/** The output file named for import is not there (moved or deleted before the library took it). */
export class ImportSourceMissingError extends Error {
  constructor(file: string) {
    super(`The output file ${file} is no longer there, so it cannot be added to the library.`);
    this.name = 'ImportSourceMissingError';
  }
}

interface KeyedRow {
  id: number;
  status: string;
  sourceFile: string | null;
}

async function findByKey(index: LibraryIndex, baseUrl: string, promptId: string, file: OutputFile): Promise<KeyedRow | null> {
  const raw = await index.single((q) =>
    q.get('SELECT id, status, source_file FROM library_items WHERE base_url = ? AND prompt_id = ? AND file_type = ? AND file_subfolder = ? AND file_name = ?', [
      baseUrl,
      promptId,
      file.type,
      file.subfolder,
      file.filename,
    ]),
  );
  if (!raw || typeof raw['id'] !== 'number' || typeof raw['status'] !== 'string') return null;
  return { id: raw['id'], status: raw['status'], sourceFile: typeof raw['source_file'] === 'string' ? raw['source_file'] : null };
}

async function itemOf(ctx: ImportContext, id: number): Promise<LibraryItem> {
  const row = await ctx.index.get(id);
  if (!row) throw new Error(`The library item ${id} was removed while its file was being added.`);
  return toItem(row, ctx.root);
}

/** Notes the input file on an item that has none yet; returns whether it changed. */
async function noteSource(ctx: ImportContext, id: number, sourceFile: string | null): Promise<boolean> {
  if (sourceFile === null) return false;
  const result = await ctx.index.single((q) => q.run('UPDATE library_items SET source_file = ? WHERE id = ? AND source_file IS NULL', [sourceFile, id]));
  return result.changes > 0;
}

function inStaging(file: string, ctx: ImportContext): boolean {
  return path.dirname(path.resolve(file)) === path.resolve(ctx.stagingDir);
}

/**
 * Files up to this size are copied through memory (one read that also hashes and probes them, one
 * write): outputs are mostly images of a few MB. Larger ones (videos) are copied by the kernel and
 * hashed in one streaming read of the copy, never held whole in memory; the bound is what a hot
 * folder's imports at once (8) may hold together.
 */
const IN_MEMORY_COPY_BYTES = 8 * 1024 * 1024;

/** The source's bytes when it is a file of at most IN_MEMORY_COPY_BYTES; null when it is larger. */
async function readSmallFile(file: string): Promise<Buffer | null> {
  const handle = await fs.open(file, 'r');
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw Object.assign(new Error(`${file} is a folder`), { code: 'EISDIR' });
    if (info.size > IN_MEMORY_COPY_BYTES) return null;
    // A file that shrank meanwhile: what was read is what is imported.
    return await readBytes(handle, info.size);
  } finally {
    await handle.close();
  }
}

/**
 * Writes `bytes` to the fresh path `staged` in the staging folder, made on first use, and makes
 * them durable on the descriptor that wrote them (fdatasync: the data and the size, not the
 * times), before the file is given its name in the library (publish.ts's step 2): otherwise a
 * power cut after the folder's fsync could leave the name with its contents never written.
 */
async function writeStaged(staged: string, bytes: Uint8Array, stagingDir: string): Promise<void> {
  const open = (): Promise<fs.FileHandle> => fs.open(staged, 'wx');
  const handle = await open().catch(async (error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await fs.mkdir(stagingDir, { recursive: true });
    return open();
  });
  try {
    await handle.writeFile(bytes);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * A copy made by the kernel (a reflink, or copyFile for a file too large for memory), made
 * durable before it is published, on the one descriptor that also reads it: its size (a reflink's
 * check) or its digest (a copy's one streaming read). A read-write open: some systems refuse an
 * fsync on a descriptor open for reading only.
 */
async function syncedCopy<T>(staged: string, read: (handle: fs.FileHandle) => Promise<T>): Promise<T> {
  const handle = await fs.open(staged, 'r+');
  try {
    const result = await read(handle);
    await handle.datasync();
    return result;
  } finally {
    await handle.close();
  }
}

/**
 * The library's copy of the output in staging, and its digest: the download's tee copy as it is;
 * else a reflink (trusting the download's digest when the size still matches); else a copy, hashed
 * and probed (through memory for a small file). The copy is a file of its own in the staging folder
 * (no folder per import: a mkdir and a recursive removal less, on the path of every import).
 */
async function stageCopy(request: ImportFileRequest, ctx: ImportContext): Promise<{ staged: string; digest: FileDigest }> {
  const known = request.staged;
  if (known?.path) {
    if (!inStaging(known.path, ctx)) throw new Error(`The staged copy ${known.path} is not in the library's staging folder.`);
    return { staged: known.path, digest: known.digest };
  }
  const staged = partialPathFor(path.join(ctx.stagingDir, 'import'));
  try {
    if (known) {
      await fs.mkdir(ctx.stagingDir, { recursive: true });
      if (await reflinkCopy(request.path, staged)) {
        // A clone shares the output's blocks, but its own extents are not durable until synced.
        const size = await syncedCopy(staged, async (handle) => (await handle.stat()).size);
        if (size === known.digest.size) return { staged, digest: known.digest };
        await fs.rm(staged, { force: true }); // changed since the download: copied and hashed again
      }
    }
    const bytes = await readSmallFile(request.path);
    if (bytes) {
      await writeStaged(staged, bytes, ctx.stagingDir);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      return { staged, digest: { sha256, size: bytes.length, head: bytes.subarray(0, PROBE_BYTES) } };
    }
    await fs.mkdir(ctx.stagingDir, { recursive: true });
    await fs.copyFile(request.path, staged, fsConstants.COPYFILE_EXCL);
    return { staged, digest: await syncedCopy(staged, (handle) => digestFile(handle, PROBE_BYTES)) };
  } catch (error) {
    await fs.rm(staged, { force: true }).catch(() => {});
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ImportSourceMissingError(request.path);
    if (code === 'EISDIR') throw new Error(`${request.path} is a folder, not an output file.`);
    throw error;
  }
}

export async function importFile(request: ImportFileRequest, ctx: ImportContext): Promise<LibraryItem> {
  // The staged copy this import owns: the download's tee, or the copy stageCopy made.
  const staging: Staging = { path: request.staged?.path ?? null, published: false };
  try {
    return await importStaged(request, ctx, staging);
  } finally {
    // Removed when it was not published (or was reused by hash); only ever inside staging: a path
    // elsewhere was refused, and is nobody's to delete here. (Publishing moved it to its final name already.)
    const own = staging.path;
    if (own && !staging.published && inStaging(own, ctx)) await fs.rm(own, { force: true }).catch(() => {});
  }
}

interface Staging {
  path: string | null;
  published: boolean;
}

async function importStaged(request: ImportFileRequest, ctx: ImportContext, staging: Staging): Promise<LibraryItem> {
  const server = { ...request.server, baseUrl: request.server.baseUrl.replace(/\/+$/, '') };
  const { file } = request;

  // Asked first only when it can save a copy: with the download's tee copy at hand the insert
  // below finds a row already done just as well (and the tee is dropped all the same).
  const known = request.staged?.path ? null : await findByKey(ctx.index, server.baseUrl, request.promptId, file);
  if (known?.status === 'done') {
    if (await noteSource(ctx, known.id, request.sourceFile)) {
      const item = await itemOf(ctx, known.id);
      ctx.emit({ type: 'updated', item });
      return item;
    }
    return itemOf(ctx, known.id);
  }

  const { staged, digest } = await stageCopy(request, ctx);
  staging.path = staged;
  const workflow = request.workflow;
  const nodeClass = nodeClassOf(workflow, file.node);
  const media = probeMedia(digest.head, digest.size, file.filename, null);
  const name = libraryFileName(file.filename, nodeClass, media.mime);
  const createdAt = request.createdAt ?? ctx.now();
  const provenance = provenanceOf(workflow);
  const row: NewItemRow = {
    promptId: request.promptId,
    profileId: server.profileId,
    serverKind: server.kind,
    baseUrl: server.baseUrl,
    workflow,
    workflowName: request.workflowName,
    nodeId: file.node,
    nodeClass,
    outputKey: file.key,
    fileName: file.filename,
    fileSubfolder: file.subfolder,
    fileType: file.type,
    mediaKind: guessKind(file.key, file.filename),
    inputs: stringifyJsonExact(provenance.inputs),
    inputText: provenance.inputText,
    promptText: provenance.promptText,
    createdAt,
    recordedAt: ctx.now(),
    status: 'pending',
    // Noted while the row is still pending, so a row marked done always has it.
    sourceFile: request.sourceFile,
  };

  const outcome = await ctx.exclusive(digest.sha256, async (): Promise<{ id: number; change: 'added' | 'updated' | null; done: ItemRow | null }> => {
    // Indexed (pending) first, so the row exists before its file is published under it.
    const { id, inserted } = await ctx.index.insert(row);
    // A row this step just inserted is the pending `row`; only an existing one needs reading.
    const current = inserted ? null : await ctx.index.get(id);
    if (current?.status === 'done') {
      // A download finished meanwhile: its file stays, this copy is dropped.
      return { id, change: (await noteSource(ctx, id, request.sourceFile)) ? 'updated' : null, done: null };
    }
    // A row recorded earlier (by the app, pending) takes the input file now, before it is done.
    if (!inserted && request.sourceFile !== null)
      await ctx.index.single((q) => q.run('UPDATE library_items SET source_file = ? WHERE id = ?', [request.sourceFile, id]));
    const { done, published } = await placeStagedFile({ path: staged, name, digest, media, createdAt: current?.created_at ?? createdAt }, ctx);
    staging.published = published !== null;
    // The row as it is now comes back from the same statement: no read after it.
    const doneRow = await ctx.index.markDoneReturning(id, done);
    // Removed meanwhile (the removal of a row without a file does not wait for its bytes' step):
    // a file nobody points at must not stay behind; itemOf below reports the removal.
    if (!doneRow && published) await fs.rm(published, { force: true });
    return { id, change: inserted ? 'added' : 'updated', done: doneRow };
  });
  const item = outcome.done ? toItem(outcome.done, ctx.root) : await itemOf(ctx, outcome.id);
  if (outcome.change) ctx.emit({ type: outcome.change, item });
  return item;
}

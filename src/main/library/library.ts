// The outputs library: every output file of every job, downloaded into one folder, indexed in the
// shared store, searchable. record() indexes a job's outputs at once (status pending) and queues
// their downloads; a few run at a time, failures are retried with backoff and reported per item;
// pending downloads live in the store, so a new Library over the same store resumes them
// (resumePending()). Plain Node: the app core, the CLI and the tests use it alike.
import { ChangeFeed } from '@shared/change-feed';
import { KeyedTimers } from '@shared/keyed-timers';
import { Wakeups } from '@shared/wakeups';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { stringifyJsonExact } from '@shared/json';
import { backoffDelay } from '@main/service/backoff';
import type { Workflow } from '@main/service/types';
import { canReflink } from '@main/files/reflink';
import { partialPathFor } from '@main/files/partial-files';
import { downloadAttempt } from './download-attempt';
import { importFile, type ImportFileRequest } from './import-file';
import { classifyFailure } from './failures';
import { KeyedExclusive } from './keyed-exclusive';
import { INCOMING_DIR, removeStaleStaging } from './layout';
import { LibraryIndex, type NewItemRow } from './library-index';
import { DEFAULT_LIBRARY_RETRY, outputKey, type DeleteResult, type LibraryOptions } from './library-options';
import { containedRealPath, type ContainedFile } from './item-file';
import { guessKind } from './media-info';
import { nodeClassOf, provenanceOf } from './provenance';
import { rowFilePath, toItem, type ItemRow } from './rows';
import { removeItem } from './item-remove';
import { ThumbnailCache } from './thumbnail-cache';
import { TermsFill } from './terms-fill';
import { osTrash, type TrashFunction } from './trash';
import {
  SourceUnavailableError,
  type LibraryChange,
  type LibraryItem,
  type LibraryRetryPolicy,
  type ListFilter,
  type RecordContext,
  type RecordJob,
  type SourceResolver,
  type Thumbnail,
} from './types';

export class Library {
  readonly root: string;
  private readonly index: LibraryIndex;
  private readonly source: SourceResolver;
  private readonly now: () => number;
  private readonly concurrency: number;
  private readonly retryPolicy: LibraryRetryPolicy;
  private readonly includeTypes: ReadonlySet<string>;
  private readonly trash: TrashFunction;
  private readonly log: (message: string) => void;
  private readonly stagingDir: string;

  /** Ids ready to download now, in order. */
  private readonly queue: number[] = [];
  private readonly queued = new Set<number>();
  private readonly timers = new KeyedTimers<number>({ unref: true });
  private readonly changes: ChangeFeed<LibraryChange>;
  private readonly active = new Map<number, { controller: AbortController; done: Promise<void> }>();
  private readonly settles = new Wakeups();
  private readonly thumbnails: ThumbnailCache;
  /** Outputs recorded by this instance: repeated record() calls of a growing job skip them. */
  private readonly recordedKeys = new Set<string>();
  /** Tee copies asked for by record() (RecordContext.alsoWriteTo), by item id, for its first attempt. */
  private readonly tees = new Map<number, readonly string[]>();
  /** The dedupe-and-publish step, per content (keyed-exclusive.ts). */
  private readonly exclusive = new KeyedExclusive();
  private readonly termsFill: TermsFill;
  private disposed = false;
  /** The staging folder made (canReflinkTo), or being made. */
  private stagingMade: Promise<void> | null = null;

  private constructor(index: LibraryIndex, options: LibraryOptions) {
    this.index = index;
    this.root = path.resolve(options.root);
    this.thumbnails = new ThumbnailCache(this.root);
    this.termsFill = new TermsFill(options.store);
    this.source = options.source;
    this.now = options.now ?? Date.now;
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 2));
    this.retryPolicy = { ...DEFAULT_LIBRARY_RETRY, ...(options.retry ?? {}) };
    this.includeTypes = new Set(options.includeTypes ?? ['output']);
    this.trash = options.trash ?? osTrash;
    this.log = options.log ?? (() => {});
    this.changes = new ChangeFeed((error) => this.log(`library: a change listener failed: ${error instanceof Error ? error.message : String(error)}`));
    // Per process and instance, named by pid: a later start can tell an abandoned one from a live one.
    this.stagingDir = path.join(this.root, INCOMING_DIR, `${process.pid}-${randomBytes(4).toString('hex')}`);
  }

  /** Applies the library's migrations to `store` and returns a library over it (not yet started). */
  static async open(options: LibraryOptions): Promise<Library> {
    return new Library(await LibraryIndex.open(options.store), options);
  }

  /** Lists the search terms an older library lacks, in chunks (terms-fill.ts): work for after the first screen. */
  fillSearchTerms(): Promise<void> {
    return this.termsFill.run();
  }

  /** Creates the folder and removes what crashed processes left in staging. Downloads are not resumed: see resumePending(). */
  async start(): Promise<void> {
    await fs.mkdir(this.root, { recursive: true });
    const removed = await removeStaleStaging(this.root);
    if (removed > 0) this.log(`library: removed ${removed} unfinished download folder(s) left by an earlier run`);
  }

  /**
   * Queues every item whose file is not in the library yet: pending ones, ones a crash left
   * "downloading", and failed ones with a retry due (at their time). Items this instance is
   * already working on are left as they are. `server` limits it to one profile id or base URL.
   * Returns how many were queued or scheduled.
   */
  async resumePending(filter: { server?: string } = {}): Promise<number> {
    if (this.disposed) return 0;
    let count = 0;
    for (const row of await this.index.unfinished()) {
      if (filter.server !== undefined && row.profile_id !== filter.server && row.base_url !== filter.server.replace(/\/+$/, '')) continue;
      if (this.active.has(row.id) || this.queued.has(row.id) || this.timers.has(row.id)) continue;
      if (row.status === 'failed' && row.retry_at === null) continue; // given up: only retry(id) brings it back
      if (row.status === 'downloading') {
        await this.index.markPending(row.id);
        this.emitUpdated(row.id);
      }
      if (row.status === 'failed' && row.retry_at !== null && row.retry_at > this.now()) this.scheduleAt(row.id, row.retry_at);
      else this.enqueue(row.id);
      count += 1;
    }
    return count;
  }

  /**
   * Indexes the outputs of a job (the same file of the same job only once, however often it is
   * recorded) and queues their downloads. Returns the items of these outputs, new or not.
   */
  async record(job: RecordJob, context: RecordContext): Promise<LibraryItem[]> {
    if (this.disposed) throw new Error('The library has been closed.');
    const server = { ...context.server, baseUrl: context.server.baseUrl.replace(/\/+$/, '') };
    const seen = new Set<string>();
    const outputs = job.outputs.filter((o) => {
      const key = outputKey(server.baseUrl, job.promptId, o);
      if (!this.includeTypes.has(o.type) || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    if (outputs.length === 0) return [];
    const workflow: Workflow | null = context.workflow ?? null;
    const provenance = provenanceOf(workflow);
    const inputsJson = stringifyJsonExact(provenance.inputs);
    const createdAt = context.createdAt ?? job.trackedAt ?? this.now();
    const workflowName = context.workflowName ?? job.workflowName ?? null;
    const recordedAt = this.now();
    const rows: NewItemRow[] = outputs.map((output) => ({
      promptId: job.promptId,
      profileId: server.profileId,
      serverKind: server.kind,
      baseUrl: server.baseUrl,
      workflow,
      workflowName,
      nodeId: output.node,
      nodeClass: nodeClassOf(workflow, output.node),
      outputKey: output.key,
      fileName: output.filename,
      fileSubfolder: output.subfolder,
      fileType: output.type,
      mediaKind: guessKind(output.key, output.filename),
      inputs: inputsJson,
      inputText: provenance.inputText,
      promptText: provenance.promptText,
      createdAt,
      recordedAt,
      status: 'pending',
    }));
    const results = await this.index.transaction((tx) => this.index.insertMany(rows, tx));
    const ids = results.map((r) => r.id);
    const added = [...new Set(results.filter((r) => r.inserted).map((r) => r.id))];
    if (context.alsoWriteTo) {
      results.forEach((r, i) => {
        const paths = r.inserted ? context.alsoWriteTo!(outputs[i]!) : [];
        if (paths.length > 0) this.tees.set(r.id, paths);
      });
    }
    for (const output of outputs) this.recordedKeys.add(outputKey(server.baseUrl, job.promptId, output));
    const stored = await this.index.getMany(ids);
    const byId = new Map(stored.map((r) => [r.id, r]));
    for (const id of added) {
      const row = byId.get(id);
      if (row) this.emit({ type: 'added', item: toItem(row, this.root) });
      this.enqueue(id);
    }
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [toItem(row, this.root)] : [];
    });
  }

  /** An output file already on disk (a hot folder's) enters the library by copy, without a second download (import-file.ts). */
  async importFile(request: ImportFileRequest): Promise<LibraryItem> {
    if (this.disposed) throw new Error('The library has been closed.');
    const ctx = {
      root: this.root,
      stagingDir: this.stagingDir,
      index: this.index,
      now: this.now,
      exclusive: <T>(key: string, task: () => Promise<T>) => this.exclusive.run(key, task),
      emit: (change: LibraryChange) => this.emit(change),
    };
    return importFile(request, ctx);
  }

  /**
   * Whether a file of this library can be given to `dir` by reflink (copy-on-write: no bytes read
   * or written, and editing either file leaves the other alone). When not, a caller that wants a
   * copy elsewhere asks for a tee instead (RecordContext.alsoWriteTo, stagingFileFor).
   */
  async canReflinkTo(dir: string): Promise<boolean> {
    // Made once per library (asked for every hot-folder output); made again if that failed.
    this.stagingMade ??= fs.mkdir(this.stagingDir, { recursive: true }).then(
      () => undefined,
      (error: unknown) => {
        this.stagingMade = null;
        throw error;
      },
    );
    await this.stagingMade;
    return canReflink(this.stagingDir, dir);
  }

  /**
   * A fresh partial path in this library's staging folder, for a tee copy of a file about to be
   * downloaded into `outputDir` (a hot folder's), handed back with importFile's `staged`; null
   * when importFile can take the file by reflink instead, which writes nothing.
   */
  async stagingFileFor(outputDir: string): Promise<string | null> {
    if (this.disposed) return null;
    if (await this.canReflinkTo(outputDir)) return null;
    return partialPathFor(path.join(this.stagingDir, 'import'));
  }

  /** Whether every output of `job` on `baseUrl` was recorded by this instance already (cheap, no I/O). */
  hasRecorded(job: RecordJob, baseUrl: string): boolean {
    const base = baseUrl.replace(/\/+$/, '');
    return job.outputs.filter((o) => this.includeTypes.has(o.type)).every((o) => this.recordedKeys.has(outputKey(base, job.promptId, o)));
  }

  async get(id: number): Promise<LibraryItem | null> {
    const row = await this.index.get(id);
    return row ? toItem(row, this.root) : null;
  }

  async list(filter: ListFilter = {}): Promise<LibraryItem[]> {
    return (await this.index.list(filter)).map((row) => toItem(row, this.root));
  }

  async count(filter: ListFilter = {}): Promise<number> {
    return this.index.count(filter);
  }

  /** Full-text search (workflow name, prompt text, node class, file name, input values) within the filters. */
  async search(query: string, filter: ListFilter = {}): Promise<LibraryItem[]> {
    return (await this.index.search(query, filter)).map((row) => toItem(row, this.root));
  }

  /** The workflow an item's job ran (big integers exact), for "run again". */
  async workflow(id: number): Promise<Workflow | null> {
    return this.index.workflowOf(id);
  }

  async workflows(): Promise<{ name: string; count: number }[]> {
    return this.index.workflows();
  }

  /**
   * A finished item's file, ready to read or serve: its real path when it lies inside the library
   * folder it was written to (see containedRealPath); `missing` when it is gone from the disk,
   * `outside` when the stored path leads out of that folder. Null for unknown or unfinished items.
   */
  async file(id: number): Promise<{ item: LibraryItem; file: ContainedFile } | null> {
    const row = await this.index.get(id);
    if (!row || row.status !== 'done') return null;
    const stored = rowFilePath(row, this.root);
    const file: ContainedFile = stored === null ? { ok: false, reason: 'outside' } : await containedRealPath(stored, row.root ?? this.root);
    return { item: toItem(row, this.root), file };
  }

  /** How many items search(query, filter) would find without a limit. */
  async searchCount(query: string, filter: ListFilter = {}): Promise<number> {
    return this.index.searchCount(query, filter);
  }

  /** The servers items came from (profile id, else base URL), with counts, newest first. */
  async servers(): Promise<{ server: string; profileId: string | null; baseUrl: string; count: number }[]> {
    return this.index.servers();
  }

  /** Puts a failed item back in line now, with a fresh count of attempts. */
  async retry(id: number): Promise<LibraryItem | null> {
    if (this.active.has(id)) return this.get(id);
    if (!(await this.index.requeue(id))) return this.get(id);
    this.timers.cancel(id);
    this.emitUpdated(id);
    this.enqueue(id);
    return this.get(id);
  }

  /**
   * Removes an item: stops its download, moves its file to the trash unless another item shares
   * the same bytes, drops its thumbnails with the file, and deletes the row.
   */
  async delete(id: number): Promise<DeleteResult> {
    this.timers.cancel(id);
    this.dequeue(id);
    const running = this.active.get(id);
    if (running) {
      running.controller.abort();
      await running.done;
    }
    const result = await removeItem(id, { index: this.index, root: this.root, trash: this.trash, log: this.log, thumbnails: this.thumbnails }, this.exclusive);
    if (result.removed) this.emit({ type: 'removed', id });
    this.settles.wakeAll();
    return result;
  }

  /**
   * A JPEG thumbnail whose longer edge is at most `maxSize` (16..2048), made once and cached under
   * .thumbnails/. Null for items that are not a finished PNG, JPEG, WebP or GIF image.
   */
  async thumbnail(id: number, maxSize = 256): Promise<Thumbnail | null> {
    const row = await this.index.get(id);
    return row ? this.thumbnails.of(row, maxSize) : null;
  }

  /** Every change: added (recorded), updated (status, file), removed. Returns an unsubscribe function. */
  onChange(listener: (change: LibraryChange) => void): () => void {
    return this.changes.on(listener);
  }

  /**
   * Resolves once this instance has no more work planned for these items: each is done, given
   * up, waiting for a server that is not reachable from here, or removed. Returns their latest
   * state (removed ones are left out).
   */
  async whenSettled(ids: readonly number[], options: { signal?: AbortSignal } = {}): Promise<LibraryItem[]> {
    const busy = (): boolean => ids.some((id) => this.queued.has(id) || this.active.has(id) || this.timers.has(id));
    while (busy() && !this.disposed) {
      options.signal?.throwIfAborted();
      await this.settles.next(options.signal);
    }
    const rows = await this.index.getMany(ids);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [toItem(row, this.root)] : [];
    });
  }

  /**
   * Stops downloads (their items go back to pending, the attempt not counted, so the next run
   * resumes them), cancels retry timers and removes this instance's staging folder. The store
   * stays open (it is the caller's).
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.termsFill.stop();
    this.timers.cancelAll();
    this.queue.length = 0;
    this.queued.clear();
    const running = [...this.active.values()];
    for (const r of running) r.controller.abort();
    await Promise.all(running.map((r) => r.done));
    await this.thumbnails.settled();
    await this.exclusive.idle();
    await fs.rm(this.stagingDir, { recursive: true, force: true }).catch(() => {});
    this.settles.wakeAll();
    this.changes.clear();
    this.tees.clear();
  }

  // ---------------------------------------------------------------- scheduling

  private enqueue(id: number): void {
    if (this.disposed || this.queued.has(id) || this.active.has(id)) return;
    this.timers.cancel(id);
    this.queue.push(id);
    this.queued.add(id);
    this.pump();
  }

  private dequeue(id: number): void {
    if (!this.queued.delete(id)) return;
    const at = this.queue.indexOf(id);
    if (at >= 0) this.queue.splice(at, 1);
  }

  private scheduleAt(id: number, when: number): void {
    if (this.disposed) return;
    this.timers.set(id, when - this.now(), () => this.enqueue(id));
  }

  private pump(): void {
    while (!this.disposed && this.active.size < this.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!;
      this.queued.delete(id);
      const controller = new AbortController();
      const done = this.runAttempt(id, controller.signal)
        .catch((error: unknown) => this.log(`library: download of item ${id} failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          this.active.delete(id);
          this.pump();
          this.settles.wakeAll();
        });
      this.active.set(id, { controller, done });
    }
  }

  private async runAttempt(id: number, signal: AbortSignal): Promise<void> {
    const row = await this.index.get(id);
    if (!row || row.status === 'done') return;
    const server = { profileId: row.profile_id, kind: row.server_kind, baseUrl: row.base_url };
    let source;
    try {
      source = await this.source(server);
      if (!source) throw new SourceUnavailableError(`Waiting for a connection to ${row.base_url}.`);
    } catch (error) {
      const reason =
        error instanceof SourceUnavailableError ? error.message : `No client for ${row.base_url}: ${error instanceof Error ? error.message : String(error)}`;
      await this.index.markPending(id, reason);
      this.emitUpdated(id);
      return;
    }
    // The tee is for the first attempt only: a caller waiting on it copies from the library otherwise.
    const alsoWriteTo = this.tees.get(id);
    this.tees.delete(id);
    if (signal.aborted || !(await this.index.markDownloading(id))) return;
    this.emitUpdated(id);
    try {
      const outcome = await downloadAttempt(
        row,
        source,
        {
          root: this.root,
          stagingDir: this.stagingDir,
          index: this.index,
          now: this.now,
          exclusive: (key, task) => this.exclusive.run(key, task),
          ...(alsoWriteTo ? { alsoWriteTo } : {}),
        },
        signal,
      );
      if (outcome === 'done') this.emitUpdated(id);
    } catch (error) {
      await this.afterFailure(row, error, signal.aborted);
    }
  }

  private async afterFailure(row: ItemRow, error: unknown, aborted: boolean): Promise<void> {
    const failure = classifyFailure(error, aborted);
    const attempts = row.attempts + 1;
    if (failure.kind === 'cancelled' || failure.kind === 'unavailable') {
      // Stopped on purpose, or no client: not the download's fault, so the attempt does not count.
      await this.index.uncountAttempt(row.id, failure.kind === 'unavailable' ? failure.reason : null);
      this.emitUpdated(row.id);
      return;
    }
    const retryAt =
      failure.kind === 'retry' && attempts < this.retryPolicy.maxAttempts && !this.disposed
        ? this.now() +
          backoffDelay(attempts - 1, {
            baseMs: this.retryPolicy.baseMs,
            maxMs: this.retryPolicy.maxMs,
            minMs: Math.min(this.retryPolicy.baseMs, 250),
            random: this.retryPolicy.random,
          })
        : null;
    const reason = retryAt === null && failure.kind === 'retry' ? `${failure.reason} (gave up after ${attempts} attempts)` : failure.reason;
    await this.index.markFailed(row.id, reason, retryAt);
    this.log(`library: ${row.file_name} of job ${row.prompt_id}: attempt ${attempts} failed: ${reason}`);
    if (retryAt !== null) this.scheduleAt(row.id, retryAt);
    this.emitUpdated(row.id);
  }

  // ---------------------------------------------------------------- helpers

  private emit(change: LibraryChange): void {
    this.changes.emit(change);
  }

  private emitUpdated(id: number): void {
    if (!this.changes.listened()) return;
    void this.index.get(id).then(
      (row) => {
        if (row) this.emit({ type: 'updated', item: toItem(row, this.root) });
      },
      () => undefined,
    );
  }
}

// A hot folder's memory of its files: the entries (one per content), which entry lives at which
// path, and what each path was keyed as (so an unchanged file is not hashed again). Every change
// is written to the journal and shown in the folder's file table, so memory, journal and table
// never disagree. Also moves finished inputs to done/ or failed/, which changes their paths.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isInside, type HotFolderConfig } from './config';
import { moveInto } from './dispose-input';
import type { FolderFeed } from './folder-feed';
import type { EntryRecord, JournalState, PathRecord, WatchJournal } from './journal';
import { ENTRY_ROW, PATH_ROW, entryRow, type Entry } from './runner-entry';

export interface EntryBookDeps {
  config: HotFolderConfig;
  /** Folders inside the input folder that are not input (done/, failed/, outputs). */
  excluded: readonly string[];
  journal: WatchJournal;
  feed: FolderFeed;
  now(): number;
}

export class EntryBook {
  private readonly entries = new Map<string, Entry>();
  private readonly pathCache = new Map<string, PathRecord>();
  /** Which entry's file lives at a path (the entry's own path, not its duplicates'). */
  private readonly byPath = new Map<string, string>();
  /** The prompt id each entry's last awaited journal write committed (see setState). */
  private readonly promptIdOnDisk = new WeakMap<Entry, string | null>();

  constructor(private readonly deps: EntryBookDeps) {}

  get(contentKey: string): Entry | undefined {
    return this.entries.get(contentKey);
  }

  all(): IterableIterator<Entry> {
    return this.entries.values();
  }

  /** What the path was keyed as last time (size and mtime tell whether it still holds). */
  pathRecord(path: string): PathRecord | undefined {
    return this.pathCache.get(path);
  }

  /** Paths as the journal had them at start-up. */
  loadPaths(records: readonly PathRecord[]): void {
    for (const record of records) this.pathCache.set(record.path, record);
  }

  rememberPath(record: PathRecord): void {
    this.pathCache.set(record.path, record);
    void this.deps.journal.savePath(record).catch((error: unknown) => this.deps.feed.warn(`Could not record ${record.path} in the journal: ${String(error)}`));
  }

  /** Takes a journal record into memory (at start-up, or when a new content is keyed). */
  adopt(record: EntryRecord): Entry {
    const entry: Entry = { record, aliases: new Set(), workflow: null, sentHere: false, retryAt: null, where: 'idle' };
    this.entries.set(record.contentKey, entry);
    this.byPath.set(record.path, record.contentKey);
    if (record.state === 'submitting' && record.promptId === null) {
      // The cloud chooses the id, so a crash between sending and the answer cannot be checked:
      // failing it (the user may retry) is the only way never to run a file twice.
      record.state = 'failed';
      record.failedPhase = 'submit';
      record.reason =
        'Flowdeck stopped while this file was being submitted, before the server answered; whether the server accepted it cannot be checked. Retry it if no output appeared.';
      void this.save(entry);
    }
    this.refreshRow(entry);
    return entry;
  }

  /**
   * Sets and journals an entry's state. Two states are written deferred (they ride along with the
   * next journal write instead of costing one of their own, and nothing waits for them): nothing
   * depends on their being on disk, as a restart treats the state they replace the same way.
   * - 'uploading' (nothing sent yet): a restart sends the file again, as from 'discovered', or,
   *   from 'submitting', asks the server about the recorded id first, as it would anyway.
   * - 'submitted' when the prompt id is on disk already (recorded as 'submitting' before the
   *   submit): a restart asks the server about that id, finds the job and collects it. Where the
   *   server chose the id (it is new here), 'submitted' is written and awaited like any state.
   */
  async setState(entry: Entry, state: JournalState): Promise<void> {
    entry.record.state = state;
    const r = entry.record;
    const deferred = state === 'uploading' || (state === 'submitted' && r.promptId !== null && this.promptIdOnDisk.get(entry) === r.promptId);
    await this.save(entry, deferred);
    this.refreshRow(entry);
  }

  save(entry: Entry, deferred = false): Promise<void> {
    entry.record.updatedAt = this.deps.now();
    if (deferred) return this.deps.journal.saveEntry(entry.record, { deferred: true });
    const promptId = entry.record.promptId;
    return this.deps.journal.saveEntry(entry.record).then(() => void this.promptIdOnDisk.set(entry, promptId));
  }

  refreshRow(entry: Entry): void {
    this.deps.feed.putRow(ENTRY_ROW + entry.record.contentKey, entryRow(this.deps.config.id, entry));
  }

  /** Removes an entry from memory, the table and the journal (its file is gone, or replaced). */
  async forgetEntry(entry: Entry): Promise<void> {
    const r = entry.record;
    this.entries.delete(r.contentKey);
    if (this.byPath.get(r.path) === r.contentKey) this.byPath.delete(r.path);
    this.deps.feed.dropRow(ENTRY_ROW + r.contentKey);
    await this.deps.journal.deleteEntry(this.deps.config.id, r.contentKey);
  }

  /**
   * New content was written over a file the journal knows: a failure of the old content no longer
   * describes the file there, so it is forgotten. A success is kept (the old content, should it
   * come back, is still known as done), but no longer points at this path.
   */
  replacedAt(path: string): void {
    const key = this.byPath.get(path);
    const old = key === undefined ? undefined : this.entries.get(key);
    if (!old || old.where !== 'idle') return;
    if (old.record.state === 'failed') void this.forgetEntry(old).catch(() => undefined);
    else this.byPath.delete(path);
  }

  /** A path was removed from the input folder (watcher event). */
  forgetPath(path: string): void {
    const cached = this.pathCache.get(path);
    if (!cached) return;
    const entry = this.entries.get(cached.contentKey);
    if (entry && entry.record.path !== path) {
      entry.aliases.delete(path);
      this.deps.feed.dropRow(PATH_ROW + path);
    }
    if (!entry || entry.record.state === 'done' || entry.record.state === 'failed' || entry.record.path !== path) {
      this.pathCache.delete(path);
      void this.deps.journal.deletePath(this.deps.config.id, path).catch(() => undefined);
    }
  }

  /** Entries the journal had waiting whose file is no longer there (removed while Flowdeck was not running). */
  forgetVanished(): void {
    for (const entry of [...this.entries.values()]) {
      const r = entry.record;
      if ((r.state !== 'discovered' && r.state !== 'uploading') || entry.where !== 'idle' || existsSync(r.path)) continue;
      this.deps.feed.warn(`${r.path} was removed before it could be processed.`);
      void this.forgetEntry(entry).catch(() => undefined);
    }
  }

  /** With `processed: 'move'`: the input, its mask and its duplicates go to done/ or failed/. */
  async disposeInputs(entry: Entry): Promise<void> {
    const { config, excluded, journal, feed } = this.deps;
    if (config.processed !== 'move') return;
    const r = entry.record;
    const target = r.state === 'done' ? config.doneDir : r.state === 'failed' ? config.failedDir : null;
    if (!target) return;
    try {
      if (isInside(r.path, config.inputDir) && !excluded.some((dir) => isInside(r.path, dir))) {
        const moved = await moveInto(r.path, target, r.relPath);
        if (moved) {
          this.pathCache.delete(r.path);
          void journal.deletePath(config.id, r.path).catch(() => undefined);
          if (this.byPath.get(r.path) === r.contentKey) this.byPath.delete(r.path);
          r.path = moved;
          this.byPath.set(moved, r.contentKey);
        }
        if (r.maskPath && isInside(r.maskPath, config.inputDir) && !excluded.some((dir) => isInside(r.maskPath!, dir))) {
          const movedMask = await moveInto(r.maskPath, target, join(relative(config.inputDir, r.maskPath)));
          if (movedMask) r.maskPath = movedMask;
        }
        await this.save(entry);
        this.refreshRow(entry);
      }
      for (const alias of [...entry.aliases]) {
        const moved = await moveInto(alias, target, relative(config.inputDir, alias));
        entry.aliases.delete(alias);
        this.pathCache.delete(alias);
        void journal.deletePath(config.id, alias).catch(() => undefined);
        const row = feed.getRow(PATH_ROW + alias);
        if (row && moved) feed.putRow(PATH_ROW + alias, { ...row, path: moved, updatedAt: this.deps.now() });
      }
    } catch (error) {
      feed.warn(`Could not move ${r.path} to ${target}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

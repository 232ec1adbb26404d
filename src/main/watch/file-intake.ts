// How a hot folder finds its files and makes entries of them: the watcher, the start-up scan and
// the periodic rescan report paths; each candidate waits until it is completely written (with its
// mask, if the folder pairs masks), is keyed by content, and is filed as new, known or a duplicate.
// What happens to an entry after that is the runner's business (see FileIntakeHost).
import { basename, relative } from 'node:path';
import { isInside, type HotFolderConfig } from './config';
import { contentKeyOf, hashFile } from './content-hash';
import type { EntryBook } from './entry-book';
import type { FolderFeed } from './folder-feed';
import { discoveredEntry, type EntryRecord, type FailedPhase, type PathRecord } from './journal';
import type { Limiter } from './limiter';
import { MaskRule } from './mask-rule';
import { PatternSet, isTemporaryName } from './patterns';
import { PATH_ROW, type Entry } from './runner-entry';
import { scanFiles } from './scanner';
import { SettleQueue, statStamp, type FileStamp } from './settle';
import { watchFolder, type FolderWatcher } from './watcher';

/** What the intake needs from the runner. */
export interface FileIntakeHost {
  isStopping(): boolean;
  /** A file came in: the next time the folder drains, it says so. */
  markBusy(): void;
  /** A path's intake ended (keyed, skipped or failed): there may be work to start, or nothing left. */
  intakeEnded(): void;
  /** A rescan ended: the folder may be idle now. */
  rescanEnded(): void;
  /** Takes a new entry's record into memory (and queues it if it has a job to follow). */
  adopt(record: EntryRecord): Entry;
  enqueue(entry: Entry): void;
  fail(entry: Entry, phase: FailedPhase, reason: string): Promise<void>;
}

export interface FileIntakeDeps {
  config: HotFolderConfig;
  /** Folders inside the input folder that are not input (done/, failed/, outputs). */
  excluded: readonly string[];
  /** Watch for new files (false: the start-up scan only). */
  watch: boolean;
  /** Shared with the runner's retry of failed inputs, so hashing never runs wider than its limit. */
  hashing: Limiter;
  book: EntryBook;
  feed: FolderFeed;
  now(): number;
  host: FileIntakeHost;
}

export class FileIntake {
  private readonly config: HotFolderConfig;
  private readonly patterns: PatternSet;
  private readonly maskRule: MaskRule | null;
  private readonly settle: SettleQueue;
  /** Paths between "seen" and "keyed" (settling or hashing). */
  private readonly intake = new Set<string>();
  private readonly intakeWork = new Set<Promise<void>>();
  private readonly watchErrors = new Set<string>();
  private watcher: FolderWatcher | null = null;
  private rescanTimer: ReturnType<typeof setTimeout> | null = null;
  private scanning: Promise<void> | null = null;
  private scannedOnce = false;

  constructor(private readonly deps: FileIntakeDeps) {
    this.config = deps.config;
    this.patterns = new PatternSet(deps.config.patterns);
    this.maskRule = deps.config.maskRule === null ? null : new MaskRule(deps.config.maskRule);
    this.settle = new SettleQueue(deps.config.settleMs);
  }

  /** The start-up scan has ended. */
  get scanned(): boolean {
    return this.scannedOnce;
  }

  /** A scan (start-up or rescan) is under way. */
  get scanInProgress(): boolean {
    return this.scanning !== null;
  }

  /** How many paths are settling or being keyed. */
  get pending(): number {
    return this.intake.size;
  }

  async watch(): Promise<void> {
    this.watcher = await watchFolder(this.config.inputDir, {
      recursive: this.config.recursive,
      excluded: this.deps.excluded,
      usePolling: this.config.usePolling,
      onFile: (path) => this.see(path),
      onRemove: (path) => this.deps.book.forgetPath(path),
      onError: (error) => this.watchFailed(error),
    });
  }

  /** Starts the start-up scan; `ended` runs once it has (whether or not it succeeded). */
  startScan(ended: () => void): void {
    this.scanning = this.scan().finally(() => {
      this.scannedOnce = true;
      this.scanning = null;
      ended();
    });
  }

  cancelRescan(): void {
    if (this.rescanTimer) clearTimeout(this.rescanTimer);
    this.rescanTimer = null;
  }

  /** Stops watching and waits for the paths being keyed (their settle waits end at once). */
  async close(): Promise<void> {
    this.settle.dispose();
    await this.watcher?.close();
    this.watcher = null;
    await this.scanning?.catch(() => undefined);
    // Files being keyed finish quickly now (their settle waits ended): none writes after the stop.
    await Promise.all([...this.intakeWork]);
  }

  private async scan(): Promise<void> {
    const excluded = new Set(this.deps.excluded);
    for await (const path of scanFiles(this.config.inputDir, { recursive: this.config.recursive, excluded })) {
      if (this.deps.host.isStopping()) return;
      this.see(path);
    }
    this.scheduleRescan();
  }

  /**
   * A watcher error, said once per kind: chokidar watches every file, so a system limit on
   * watches (ENOSPC on Linux) would otherwise produce one warning per file.
   */
  private watchFailed(error: Error): void {
    const code = (error as NodeJS.ErrnoException).code ?? error.message;
    if (this.watchErrors.has(code)) return;
    this.watchErrors.add(code);
    const rescan =
      this.config.rescanMs > 0
        ? `new files are still found by the rescan every ${Math.round(this.config.rescanMs / 1000)} s`
        : 'new files may be missed until the folder is restarted';
    const detail =
      code === 'ENOSPC' || code === 'EMFILE'
        ? `the system's limit on watched files was reached (on Linux, raise fs.inotify.max_user_watches); ${rescan}.`
        : `${error.message}; ${rescan}.`;
    this.deps.feed.warn(`Watching ${this.config.inputDir}: ${detail}`);
  }

  private scheduleRescan(): void {
    if (!this.deps.watch || this.config.rescanMs <= 0 || this.deps.host.isStopping()) return;
    this.rescanTimer = setTimeout(() => {
      this.rescanTimer = null;
      this.scanning ??= this.scan().finally(() => {
        this.scanning = null;
        this.deps.host.rescanEnded();
      });
    }, this.config.rescanMs);
  }

  /** A path to look at (watcher event or scan). Decides quickly whether it is a candidate at all. */
  private see(path: string): void {
    const { host, feed } = this.deps;
    if (host.isStopping()) return;
    if (!isInside(path, this.config.inputDir) || this.deps.excluded.some((dir) => isInside(path, dir))) return;
    const name = basename(path);
    if (isTemporaryName(name)) return;
    if (this.maskRule?.isMask(name)) return; // masks travel with their image
    if (!this.patterns.matches(name)) return;
    if (!this.config.recursive && relative(this.config.inputDir, path).split(/[/\\]/).length > 1) return;
    if (this.intake.has(path)) {
      this.settle.touch(path);
      return;
    }
    this.intake.add(path);
    host.markBusy();
    const work = this.take(path)
      .catch((error: unknown) => feed.warn(`Could not take ${path}: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.intake.delete(path);
        this.intakeWork.delete(work);
        host.intakeEnded();
      });
    this.intakeWork.add(work);
  }

  /** Waits until `path` is complete, keys it by content, and files it as new, known or a duplicate. */
  private async take(path: string): Promise<void> {
    const { book, feed, host } = this.deps;
    const rel = relative(this.config.inputDir, path);
    const first = await statStamp(path);
    if (!first) return;
    const cached = book.pathRecord(path);
    if (cached && cached.size === first.size && cached.mtimeMs === first.mtimeMs) {
      const known = book.get(cached.contentKey);
      if (known) {
        await this.knownPath(known, path, rel);
        return;
      }
    }
    const rowKey = PATH_ROW + path;
    feed.putRow(rowKey, feed.newRow(path, rel, 'settling'));
    try {
      let seen: FileStamp | undefined = first;
      for (;;) {
        const stamp = await this.settle.waitStable(path, seen);
        seen = undefined;
        if (!stamp || host.isStopping()) {
          feed.dropRow(rowKey);
          return;
        }
        let maskPath: string | null = null;
        if (this.maskRule) {
          const candidate = this.maskRule.maskFor(path);
          const maskSeen = await statStamp(candidate);
          if (maskSeen && (await this.settle.waitStable(candidate, maskSeen))) maskPath = candidate;
          if (host.isStopping()) return;
        }
        const image = await this.deps.hashing.run(() => hashFile(path, { inspect: true, sizeHint: stamp.size }));
        const mask = maskPath ? await this.deps.hashing.run(() => hashFile(maskPath, { inspect: false })).catch(() => null) : null;
        // Written to while being read: settle again.
        const after = await statStamp(path);
        if (!after) {
          feed.dropRow(rowKey);
          return;
        }
        if (after.size !== stamp.size || after.mtimeMs !== stamp.mtimeMs) continue;
        if (host.isStopping()) {
          feed.dropRow(rowKey);
          return;
        }
        const key = contentKeyOf(image.sha256, mask?.sha256 ?? null);
        const pathRecord: PathRecord = { folderId: this.config.id, path, contentKey: key, imageSha256: image.sha256, size: after.size, mtimeMs: after.mtimeMs };
        book.rememberPath(pathRecord);
        feed.dropRow(rowKey);
        const known = book.get(key);
        if (known) {
          await this.knownPath(known, path, rel);
          return;
        }
        const now = this.deps.now();
        const record = discoveredEntry(
          {
            folderId: this.config.id,
            contentKey: key,
            imageSha256: image.sha256,
            maskSha256: mask?.sha256 ?? null,
            path,
            relPath: rel,
            maskPath: mask ? maskPath : null,
          },
          now,
        );
        book.replacedAt(path);
        const entry = host.adopt(record);
        if (image.image && !image.image.ok) {
          record.attempts = 1;
          await host.fail(entry, 'input', image.image.reason);
          return;
        }
        await book.save(entry);
        host.enqueue(entry);
        return;
      }
    } catch (error) {
      feed.dropRow(rowKey);
      throw error;
    }
  }

  /** A path whose content the journal knows: the entry's own file, or a duplicate of it. */
  private async knownPath(entry: Entry, path: string, rel: string): Promise<void> {
    const { book, feed, host } = this.deps;
    const r = entry.record;
    if (r.path === path) {
      if ((r.state === 'discovered' || r.state === 'uploading') && entry.where === 'idle') host.enqueue(entry);
      // Finished, but still in the input folder: a crash came between the journal and the move.
      if ((r.state === 'done' || r.state === 'failed') && this.config.processed === 'move') await book.disposeInputs(entry);
      return;
    }
    if (!entry.aliases.has(path)) {
      entry.aliases.add(path);
      feed.putRow(PATH_ROW + path, { ...feed.newRow(path, rel, 'duplicate'), contentKey: r.contentKey, duplicateOf: r.path });
    }
    if ((r.state === 'done' || r.state === 'failed') && this.config.processed === 'move') await book.disposeInputs(entry);
  }
}

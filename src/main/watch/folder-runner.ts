// One hot folder at work: finds files (watcher + start-up scan + periodic rescan), waits until each
// is completely written, keys it by content, and runs it through the workflow with at most
// `concurrency` jobs in flight, journaling every step so a crash loses nothing and repeats nothing.
//
// A file's life (journal states in brackets):
//   settling -> hashed [discovered] -> uploading [uploading] -> prompt id recorded [submitting]
//   -> accepted [submitted] -> outputs delivered [done] | [failed]
// After a restart: [discovered]/[uploading] start again from the upload (uploads are idempotent);
// [submitting] asks the server whether the id reached it, and sends it again only if it did not;
// [submitted] is never sent again: its outcome is read from the server (status, queue, history).
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join, relative } from 'node:path';
import { prepareMaskPng } from '../images/mask-file';
import { WorkflowRejectedError } from '../service/errors';
import { safeBaseName } from '../service/filenames';
import type { ServiceApi } from '../service/ports';
import type { UploadResult, Workflow } from '../service/types';
import { cloneWorkflow, parseInputRef, setInput } from '../workflow/edit';
import { isInside, type HotFolderConfig } from './config';
import { contentKeyOf, hashFile } from './content-hash';
import { deliverOutputs } from './deliver';
import { moveInto } from './dispose-input';
import type { EntryRecord, FailedPhase, JournalState, PathRecord, WatchJournal } from './journal';
import { Limiter } from './limiter';
import { MaskRule } from './mask-rule';
import { PatternSet, isTemporaryName } from './patterns';
import { pauseExplanation, reactionTo, retryDelay } from './policy';
import { askServer, type ServerVerdict } from './reconcile';
import { RowTable } from './rows';
import { scanFiles } from './scanner';
import { SettleQueue, statStamp, type FileStamp } from './settle';
import type { FolderWatcher } from './watcher';
import { watchFolder } from './watcher';
import type { FinishedOutput, FollowOutcome, HotFileRow, HotFileState, HotFolderEvent, HotFolderStatus, JobFollower, OutputSink, PauseKind } from './types';

export interface RunnerDeps {
  journal: WatchJournal;
  api: ServiceApi;
  /** The events socket's client id: a local server sends a job's events only to the socket it names. */
  clientId: () => string;
  follower: JobFollower;
  sink: OutputSink | null;
  emit(event: HotFolderEvent): void;
  now(): number;
  newPromptId?: () => string;
  random?: () => number;
}

export interface RunnerOptions {
  /** Watch for new files (false: the start-up scan only, as `flowdeck watch --once`). */
  watch: boolean;
  /** Start paused (nothing is sent until resume()). */
  paused?: boolean;
}

/** Why waiting for the folder ended. */
export type IdleReason = 'drained' | 'paused';

class FileGoneError extends Error {
  constructor(path: string) {
    super(`${path} was removed before it could be processed.`);
    this.name = 'FileGoneError';
  }
}

/** Stops the run of one entry without changing its journaled state (the runner is stopping). */
class StoppedError extends Error {
  constructor() {
    super('stopped');
    this.name = 'StoppedError';
  }
}

interface Entry {
  record: EntryRecord;
  /** Other paths with the same content (duplicates), which never run on their own. */
  aliases: Set<string>;
  /** The workflow as sent, once known. */
  workflow: Workflow | null;
  /** Accepted by this process (its events come to our socket), as opposed to found in the journal. */
  sentHere: boolean;
  retryAt: number | null;
  where: 'idle' | 'queued' | 'delayed' | 'active';
}

type ActivePhase = 'sending' | 'following' | 'delivering';

const ENTRY_ROW = 'e:';
const PATH_ROW = 'p:';

export class FolderRunner {
  readonly config: HotFolderConfig;
  private readonly deps: RunnerDeps;
  private readonly options: RunnerOptions;
  private readonly patterns: PatternSet;
  private readonly maskRule: MaskRule | null;
  private readonly bindRef: { nodeId: string; input: string };
  private readonly excluded: string[];
  private readonly settle: SettleQueue;
  private readonly hashing = new Limiter(8);
  private readonly rows = new RowTable();
  private readonly entries = new Map<string, Entry>();
  private readonly pathCache = new Map<string, PathRecord>();
  /** Which entry's file lives at a path (the entry's own path, not its duplicates'). */
  private readonly byPath = new Map<string, string>();
  /** Paths between "seen" and "keyed" (settling or hashing). */
  private readonly intake = new Set<string>();
  private readonly intakeWork = new Set<Promise<void>>();
  private readonly runQueue: Entry[] = [];
  /** Entries the server already has: collected even while the folder is paused. */
  private readonly collectQueue: Entry[] = [];
  private readonly delayed = new Map<Entry, ReturnType<typeof setTimeout>>();
  private readonly active = new Map<Entry, ActivePhase>();
  private readonly reserved = new Set<string>();
  private readonly idleWaiters = new Set<(reason: IdleReason) => void>();
  private readonly phaseWaiters = new Set<() => void>();
  private watcher: FolderWatcher | null = null;
  private rescanTimer: ReturnType<typeof setTimeout> | null = null;
  private recheckTimer: ReturnType<typeof setTimeout> | null = null;
  private scanning: Promise<void> | null = null;
  private scanned = false;
  private paused = false;
  private pauseKind: PauseKind | null = null;
  private pauseReason: string | null = null;
  /** One entry may run while the folder is paused for an account problem, to see whether it is fixed. */
  private probeAllowed = false;
  private stopping = false;
  private stopped = false;
  private busySinceDrain = false;
  private statusScheduled = false;
  private readonly watchErrors = new Set<string>();

  constructor(config: HotFolderConfig, deps: RunnerDeps, options: RunnerOptions) {
    this.config = config;
    this.deps = deps;
    this.options = options;
    this.patterns = new PatternSet(config.patterns);
    this.maskRule = config.maskRule === null ? null : new MaskRule(config.maskRule);
    this.bindRef = parseInputRef(config.bind);
    this.excluded = [config.doneDir, config.failedDir, config.outputDir].filter((dir) => isInside(dir, config.inputDir));
    this.settle = new SettleQueue(config.settleMs);
    if (options.paused) {
      this.paused = true;
      this.pauseKind = 'user';
    }
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  async start(): Promise<void> {
    const { entries, paths } = await this.deps.journal.load(this.config.id);
    for (const record of paths) this.pathCache.set(record.path, record);
    for (const record of entries) this.adopt(record);
    if (this.options.watch) {
      this.watcher = await watchFolder(this.config.inputDir, {
        recursive: this.config.recursive,
        excluded: this.excluded,
        usePolling: this.config.usePolling,
        onFile: (path) => this.see(path),
        onRemove: (path) => this.forgetPath(path),
        onError: (error) => this.watchFailed(error),
      });
    }
    this.scanning = this.scan().finally(() => {
      this.scanned = true;
      this.scanning = null;
      this.forgetVanished();
      this.publishStatus();
      this.pump();
      this.checkIdle();
    });
    this.publishStatus();
    this.pump();
  }

  /**
   * Stops taking files. Uploads and submissions under way finish first (so a file is either
   * accepted by the server, and journaled so, or not sent at all); jobs running on the server are
   * left to it and collected on the next start.
   */
  async stop(): Promise<void> {
    if (this.stopping) return this.waitForPhases();
    this.stopping = true;
    this.clearTimers();
    this.settle.dispose();
    await this.watcher?.close();
    this.watcher = null;
    await this.scanning?.catch(() => undefined);
    // Files being keyed finish quickly now (their settle waits ended): none writes after the stop.
    await Promise.all([...this.intakeWork]);
    await this.waitForPhases();
    this.stopped = true;
    await this.deps.journal.flushed().catch(() => undefined);
    for (const resolve of this.idleWaiters) resolve('drained');
    this.idleWaiters.clear();
  }

  private waitForPhases(): Promise<void> {
    const ready = (): boolean => [...this.active.values()].every((phase) => phase === 'following');
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (!ready()) return;
        this.phaseWaiters.delete(check);
        resolve();
      };
      this.phaseWaiters.add(check);
    });
  }

  private setPhase(entry: Entry, phase: ActivePhase | null): void {
    if (phase === null) this.active.delete(entry);
    else this.active.set(entry, phase);
    for (const check of [...this.phaseWaiters]) check();
  }

  private clearTimers(): void {
    if (this.rescanTimer) clearTimeout(this.rescanTimer);
    if (this.recheckTimer) clearTimeout(this.recheckTimer);
    this.rescanTimer = null;
    this.recheckTimer = null;
    for (const timer of this.delayed.values()) clearTimeout(timer);
  }

  // ---- public state -----------------------------------------------------------------------------

  status(): HotFolderStatus {
    return {
      id: this.config.id,
      name: this.config.name,
      counters: this.rows.counters(),
      paused: this.paused,
      pauseKind: this.pauseKind,
      pauseReason: this.pauseReason,
      scanned: this.scanned,
      idle: !this.busy(),
    };
  }

  files(): HotFileRow[] {
    return this.rows.list();
  }

  pause(): void {
    if (this.stopping) return;
    this.paused = true;
    this.pauseKind = 'user';
    this.pauseReason = null;
    this.probeAllowed = false;
    if (this.recheckTimer) clearTimeout(this.recheckTimer);
    this.recheckTimer = null;
    this.publishStatus();
    this.checkIdle();
  }

  resume(): void {
    if (this.stopping || !this.paused) return;
    this.paused = false;
    this.pauseKind = null;
    this.pauseReason = null;
    this.probeAllowed = false;
    if (this.recheckTimer) clearTimeout(this.recheckTimer);
    this.recheckTimer = null;
    this.publishStatus();
    this.pump();
  }

  /** Sends failed files again (all, or those at the given paths); returns how many. */
  async retryFailed(paths?: readonly string[]): Promise<number> {
    let count = 0;
    for (const entry of this.entries.values()) {
      const r = entry.record;
      if (r.state !== 'failed') continue;
      if (paths && !paths.includes(r.path)) continue;
      if (r.failedPhase !== 'collect' && !existsSync(r.path)) continue;
      if (r.failedPhase === 'input') {
        // The entry is keyed by content: the same bytes are still no image, so they are checked
        // again here and fail at once rather than being sent to the server to be refused.
        const verdict = await this.hashing.run(() => hashFile(r.path, { inspect: true })).catch(() => null);
        if (!verdict || (verdict.sha256 === r.imageSha256 && verdict.image && !verdict.image.ok)) {
          await this.fail(entry, 'input', verdict?.image && !verdict.image.ok ? verdict.image.reason : (r.reason ?? 'The file cannot be read.'));
          count += 1;
          continue;
        }
      }
      // A job that ran but whose outputs could not be collected is collected again, not rerun.
      const collectAgain = r.failedPhase === 'collect' && r.promptId !== null;
      r.state = collectAgain ? 'submitted' : 'discovered';
      if (!collectAgain) r.promptId = null;
      r.attempts = 0;
      r.reason = null;
      r.failedPhase = null;
      entry.sentHere = false;
      await this.save(entry);
      this.enqueue(entry);
      count += 1;
    }
    this.pump();
    return count;
  }

  /** Resolves when nothing is settling, queued or in flight ('drained'), or when the folder is paused with nothing left it may do ('paused'). */
  whenIdle(): Promise<IdleReason> {
    const now = this.idleReason();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  // ---- discovery --------------------------------------------------------------------------------

  private async scan(): Promise<void> {
    const excluded = new Set(this.excluded);
    for await (const path of scanFiles(this.config.inputDir, { recursive: this.config.recursive, excluded })) {
      if (this.stopping) return;
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
    const rescan = this.config.rescanMs > 0 ? `new files are still found by the rescan every ${Math.round(this.config.rescanMs / 1000)} s` : 'new files may be missed until the folder is restarted';
    const detail =
      code === 'ENOSPC' || code === 'EMFILE'
        ? `the system's limit on watched files was reached (on Linux, raise fs.inotify.max_user_watches); ${rescan}.`
        : `${error.message}; ${rescan}.`;
    this.warn(`Watching ${this.config.inputDir}: ${detail}`);
  }

  /** Entries the journal had waiting whose file is no longer there (removed while Flowdeck was not running). */
  private forgetVanished(): void {
    for (const entry of [...this.entries.values()]) {
      const r = entry.record;
      if ((r.state !== 'discovered' && r.state !== 'uploading') || entry.where !== 'idle' || existsSync(r.path)) continue;
      this.warn(`${r.path} was removed before it could be processed.`);
      void this.forgetEntry(entry).catch(() => undefined);
    }
  }

  private scheduleRescan(): void {
    if (!this.options.watch || this.config.rescanMs <= 0 || this.stopping) return;
    this.rescanTimer = setTimeout(() => {
      this.rescanTimer = null;
      this.scanning ??= this.scan().finally(() => {
        this.scanning = null;
        this.checkIdle();
      });
    }, this.config.rescanMs);
  }

  /** A path to look at (watcher event or scan). Decides quickly whether it is a candidate at all. */
  private see(path: string): void {
    if (this.stopping) return;
    if (!isInside(path, this.config.inputDir) || this.excluded.some((dir) => isInside(path, dir))) return;
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
    this.busySinceDrain = true;
    const work = this.take(path)
      .catch((error: unknown) => this.warn(`Could not take ${path}: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.intake.delete(path);
        this.intakeWork.delete(work);
        this.pump();
        this.checkIdle();
      });
    this.intakeWork.add(work);
  }

  /** Waits until `path` is complete, keys it by content, and files it as new, known or a duplicate. */
  private async take(path: string): Promise<void> {
    const rel = relative(this.config.inputDir, path);
    const first = await statStamp(path);
    if (!first) return;
    const cached = this.pathCache.get(path);
    if (cached && cached.size === first.size && cached.mtimeMs === first.mtimeMs) {
      const known = this.entries.get(cached.contentKey);
      if (known) {
        await this.knownPath(known, path, rel);
        return;
      }
    }
    const rowKey = PATH_ROW + path;
    this.putRow(rowKey, this.newRow(path, rel, 'settling'));
    try {
      let seen: FileStamp | undefined = first;
      for (;;) {
        const stamp = await this.settle.waitStable(path, seen);
        seen = undefined;
        if (!stamp || this.stopping) {
          this.dropRow(rowKey);
          return;
        }
        let maskPath: string | null = null;
        if (this.maskRule) {
          const candidate = this.maskRule.maskFor(path);
          const maskSeen = await statStamp(candidate);
          if (maskSeen && (await this.settle.waitStable(candidate, maskSeen))) maskPath = candidate;
          if (this.stopping) return;
        }
        const image = await this.hashing.run(() => hashFile(path, { inspect: true, sizeHint: stamp.size }));
        const mask = maskPath ? await this.hashing.run(() => hashFile(maskPath, { inspect: false })).catch(() => null) : null;
        // Written to while being read: settle again.
        const after = await statStamp(path);
        if (!after) {
          this.dropRow(rowKey);
          return;
        }
        if (after.size !== stamp.size || after.mtimeMs !== stamp.mtimeMs) continue;
        if (this.stopping) {
          this.dropRow(rowKey);
          return;
        }
        const key = contentKeyOf(image.sha256, mask?.sha256 ?? null);
        const pathRecord: PathRecord = { folderId: this.config.id, path, contentKey: key, imageSha256: image.sha256, size: after.size, mtimeMs: after.mtimeMs };
        this.pathCache.set(path, pathRecord);
        void this.deps.journal.savePath(pathRecord).catch((error: unknown) => this.warn(`Could not record ${path} in the journal: ${String(error)}`));
        this.dropRow(rowKey);
        const known = this.entries.get(key);
        if (known) {
          await this.knownPath(known, path, rel);
          return;
        }
        const now = this.deps.now();
        const record: EntryRecord = {
          folderId: this.config.id,
          contentKey: key,
          imageSha256: image.sha256,
          maskSha256: mask?.sha256 ?? null,
          path,
          relPath: rel,
          maskPath: mask ? maskPath : null,
          state: 'discovered',
          promptId: null,
          serverKind: null,
          baseUrl: null,
          attempts: 0,
          reason: null,
          failedPhase: null,
          uploadedAs: null,
          outputs: [],
          createdAt: now,
          updatedAt: now,
        };
        this.replacedAt(path);
        const entry = this.adopt(record);
        if (image.image && !image.image.ok) {
          record.attempts = 1;
          await this.fail(entry, 'input', image.image.reason);
          return;
        }
        await this.save(entry);
        this.enqueue(entry);
        return;
      }
    } catch (error) {
      this.dropRow(rowKey);
      throw error;
    }
  }

  /** A path whose content the journal knows: the entry's own file, or a duplicate of it. */
  private async knownPath(entry: Entry, path: string, rel: string): Promise<void> {
    const r = entry.record;
    if (r.path === path) {
      if ((r.state === 'discovered' || r.state === 'uploading') && entry.where === 'idle') this.enqueue(entry);
      // Finished, but still in the input folder: a crash came between the journal and the move.
      if ((r.state === 'done' || r.state === 'failed') && this.config.processed === 'move') await this.disposeInputs(entry);
      return;
    }
    if (!entry.aliases.has(path)) {
      entry.aliases.add(path);
      this.putRow(PATH_ROW + path, { ...this.newRow(path, rel, 'duplicate'), contentKey: r.contentKey, duplicateOf: r.path });
    }
    if ((r.state === 'done' || r.state === 'failed') && this.config.processed === 'move') await this.disposeInputs(entry);
  }

  private forgetPath(path: string): void {
    const cached = this.pathCache.get(path);
    if (!cached) return;
    const entry = this.entries.get(cached.contentKey);
    if (entry && entry.record.path !== path) {
      entry.aliases.delete(path);
      this.dropRow(PATH_ROW + path);
    }
    if (!entry || entry.record.state === 'done' || entry.record.state === 'failed' || entry.record.path !== path) {
      this.pathCache.delete(path);
      void this.deps.journal.deletePath(this.config.id, path).catch(() => undefined);
    }
  }

  // ---- entries ----------------------------------------------------------------------------------

  /** Removes an entry from memory, the table and the journal (its file is gone, or replaced). */
  private async forgetEntry(entry: Entry): Promise<void> {
    const r = entry.record;
    this.entries.delete(r.contentKey);
    if (this.byPath.get(r.path) === r.contentKey) this.byPath.delete(r.path);
    this.dropRow(ENTRY_ROW + r.contentKey);
    await this.deps.journal.deleteEntry(this.config.id, r.contentKey);
  }

  /**
   * New content was written over a file the journal knows: a failure of the old content no longer
   * describes the file there, so it is forgotten. A success is kept (the old content, should it
   * come back, is still known as done), but no longer points at this path.
   */
  private replacedAt(path: string): void {
    const key = this.byPath.get(path);
    const old = key === undefined ? undefined : this.entries.get(key);
    if (!old || old.where !== 'idle') return;
    if (old.record.state === 'failed') void this.forgetEntry(old).catch(() => undefined);
    else this.byPath.delete(path);
  }

  /** Takes a journal record into memory (at start-up, or when a new content is keyed). */
  private adopt(record: EntryRecord): Entry {
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
    if (record.state === 'submitted' || record.state === 'submitting') {
      this.busySinceDrain = true;
      this.enqueue(entry);
    }
    return entry;
  }

  private enqueue(entry: Entry, front = false): void {
    if (entry.where !== 'idle' || this.stopping) return;
    this.busySinceDrain = true;
    entry.where = 'queued';
    const queue = entry.record.state === 'submitted' ? this.collectQueue : this.runQueue;
    if (front) queue.unshift(entry);
    else queue.push(entry);
    this.refreshRow(entry);
  }

  private pump(): void {
    if (this.stopping) return;
    while (this.active.size < this.config.concurrency) {
      let entry = this.collectQueue.shift();
      if (!entry) {
        if (this.paused && !(this.probeAllowed && this.pauseKind !== 'user')) break;
        entry = this.runQueue.shift();
        if (!entry) break;
        if (this.paused) {
          // This one is the probe; should it neither succeed nor hit the same refusal (a network
          // error, say), the next re-check still comes.
          this.probeAllowed = false;
          this.scheduleRecheck();
        }
      }
      this.launch(entry);
    }
    this.publishStatus();
  }

  private launch(entry: Entry): void {
    entry.where = 'active';
    entry.retryAt = null;
    this.setPhase(entry, entry.record.state === 'submitted' ? 'following' : 'sending');
    void this.run(entry)
      .catch((error: unknown) => this.react(entry, error))
      .catch((error: unknown) => this.warn(`Internal error with ${entry.record.path}: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.setPhase(entry, null);
        if (entry.where === 'active') entry.where = 'idle';
        this.pump();
        this.checkIdle();
      });
  }

  private async run(entry: Entry): Promise<void> {
    const r = entry.record;
    if (r.state === 'submitted' && r.promptId) {
      await this.collect(entry, null);
      return;
    }
    if (r.state === 'submitting' && r.promptId) {
      const verdict = await askServer(this.deps.api, r.promptId);
      if (verdict.kind === 'unreachable') throw verdict.error;
      if (verdict.kind !== 'unknown') {
        // The send before the crash got through: never send it again.
        await this.setState(entry, 'submitted');
        this.setPhase(entry, 'following');
        await this.collect(entry, verdict);
        return;
      }
      // The server never had it: sending again (with the same id) cannot run it twice.
    }
    await this.send(entry);
    this.setPhase(entry, 'following');
    await this.collect(entry, null);
  }

  /** Uploads the file (and its mask), records the prompt id, submits. */
  private async send(entry: Entry): Promise<void> {
    const r = entry.record;
    const api = this.deps.api;
    if (!existsSync(r.path)) throw new FileGoneError(r.path);
    await this.setState(entry, 'uploading');
    const value = await this.upload(entry);
    r.uploadedAs = value;
    const workflow = cloneWorkflow(this.config.workflow);
    setInput(workflow, this.bindRef, value);
    entry.workflow = workflow;
    // A local server takes the id we choose; recorded BEFORE sending, a crash between the send
    // and the answer can be settled by asking the server. The cloud assigns its own.
    const chosen = api.profile.kind === 'local' ? (r.promptId ?? (this.deps.newPromptId ?? randomUUID)()) : null;
    r.promptId = chosen;
    r.serverKind = api.profile.kind;
    r.baseUrl = api.profile.baseUrl;
    await this.setState(entry, 'submitting');
    let promptId: string;
    try {
      const result = await api.submit(workflow, { clientId: this.deps.clientId(), ...(chosen ? { promptId: chosen } : {}) });
      promptId = result.promptId;
    } catch (error) {
      // "prompt_id already exists": an earlier send of this id got through after all.
      if (!(chosen && error instanceof WorkflowRejectedError && error.errorType === 'invalid_prompt_id')) throw error;
      const verdict = await askServer(api, chosen);
      if (verdict.kind === 'unknown' || verdict.kind === 'unreachable') throw error;
      promptId = chosen;
    }
    r.promptId = promptId;
    entry.sentHere = true;
    await this.setState(entry, 'submitted');
    // A file got through while the folder was paused for its account: the problem is fixed.
    if (this.paused && this.pauseKind !== 'user') this.resume();
  }

  private async upload(entry: Entry): Promise<string> {
    const r = entry.record;
    const api = this.deps.api;
    const ext = extname(r.path).toLowerCase();
    const stem = safeBaseName(basename(r.path, extname(r.path)), 'input');
    // Named by content: the same bytes get the same name (a resend keeps one file on the server),
    // different files with the same name never overwrite each other.
    const uploaded = await api.uploadImage(r.path, { type: 'input', filename: `${stem}-${r.imageSha256.slice(0, 12)}${ext}` });
    if (!r.maskPath) return inputValue(uploaded, api.profile.kind);
    const work = await mkdtemp(join(tmpdir(), 'flowdeck-watch-mask-'));
    try {
      const prepared = await prepareMaskPng(r.maskPath, join(work, 'mask.png'));
      const masked = await api.uploadMask(prepared.path, {
        originalRef: { filename: uploaded.name, subfolder: uploaded.subfolder, type: uploaded.type || 'input' },
        filename: `${stem}-${r.contentKey.slice(0, 12)}-mask.png`,
      });
      return inputValue(masked, api.profile.kind);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** Follows an accepted job (or reads how it ended), then delivers its outputs. */
  private async collect(entry: Entry, known: ServerVerdict | null): Promise<void> {
    const r = entry.record;
    const promptId = r.promptId!;
    const api = this.deps.api;
    if (r.baseUrl !== null && r.baseUrl !== api.profile.baseUrl) {
      await this.fail(entry, 'collect', `The job ${promptId} was sent to ${r.baseUrl}, not to the server this folder uses now (${api.profile.baseUrl}); its results cannot be collected here.`);
      return;
    }
    const workflow = entry.workflow ?? this.rebuildWorkflow(r);
    const meta = { workflow, workflowName: this.config.workflowName };
    let outcome: FollowOutcome;
    if (entry.sentHere && known === null) {
      outcome = await this.follow(promptId, meta);
    } else {
      const verdict = known ?? (await askServer(api, promptId));
      switch (verdict.kind) {
        case 'unreachable':
          throw verdict.error;
        case 'unknown':
          await this.fail(
            entry,
            'job',
            `The server no longer knows job ${promptId} (it may have been restarted, or its history cleared), so its results cannot be collected. Retry the file to run it again.`,
          );
          return;
        case 'ended':
          outcome = {
            phase: verdict.reading.phase,
            raw: verdict.reading.raw,
            outputs: verdict.history?.outputs ?? [],
            errorText:
              verdict.reading.phase === 'succeeded'
                ? null
                : verdict.history?.error
                  ? `The job failed${verdict.history.error.nodeId ? ` in node ${verdict.history.error.nodeId}` : ''}: ${verdict.history.error.exceptionType}: ${verdict.history.error.exceptionMessage}`
                  : `The job ended as ${verdict.reading.raw}${verdict.reading.errorMessage ? `: ${verdict.reading.errorMessage}` : ''}.`,
          };
          break;
        case 'in_flight':
          outcome = await this.follow(promptId, meta);
          break;
      }
    }
    if (outcome.phase !== 'succeeded') {
      await this.fail(entry, 'job', outcome.errorText ?? `The job ended as ${outcome.raw}.`);
      return;
    }
    this.setPhase(entry, 'delivering');
    let delivered: FinishedOutput[];
    try {
      delivered = await deliverOutputs({
        api,
        folder: this.config,
        entry: r,
        promptId,
        workflow,
        outputs: outcome.outputs,
        reserved: this.reserved,
        sink: this.deps.sink,
        now: this.deps.now,
        warn: (message) => this.warn(message),
      });
    } catch (error) {
      throw new CollectError(error);
    }
    r.outputs = delivered.map((o) => o.path);
    r.reason = delivered.length === 0 ? 'The job succeeded without output files.' : null;
    r.failedPhase = null;
    await this.setState(entry, 'done');
    for (const output of delivered) this.deps.emit({ type: 'output', folderId: this.config.id, output });
    await this.disposeInputs(entry);
  }

  private async follow(promptId: string, meta: { workflow: Workflow; workflowName: string | null }): Promise<FollowOutcome> {
    let outcome: FollowOutcome;
    try {
      outcome = await this.deps.follower.follow(promptId, meta);
    } catch (error) {
      if (this.stopping) throw new StoppedError();
      throw error;
    }
    // Stopped meanwhile (a folder being reconfigured): the next runner collects it from the journal.
    if (this.stopping) throw new StoppedError();
    return outcome;
  }

  private rebuildWorkflow(r: EntryRecord): Workflow {
    const workflow = cloneWorkflow(this.config.workflow);
    if (r.uploadedAs !== null) setInput(workflow, this.bindRef, r.uploadedAs);
    return workflow;
  }

  /** What a failure does: pause the folder, retry the file later, or fail it. */
  private async react(entry: Entry, error: unknown): Promise<void> {
    if (error instanceof StoppedError || (this.stopping && this.stopped)) return;
    if (this.stopping && entry.record.state === 'submitted') return; // collected on the next start
    const r = entry.record;
    if (error instanceof FileGoneError) {
      this.warn(error.message);
      await this.forgetEntry(entry);
      return;
    }
    const collecting = error instanceof CollectError;
    const cause = collecting ? error.cause : error;
    const reaction = reactionTo(cause);
    const phase: FailedPhase = collecting || r.state === 'submitted' ? 'collect' : 'submit';
    if (reaction.kind === 'fail' || this.stopping) {
      if (this.stopping && reaction.kind !== 'fail') {
        // Shutting down mid-retry: leave the journal as it is; the next start carries on.
        if (r.state === 'uploading') await this.setState(entry, 'discovered');
        return;
      }
      r.attempts += 1;
      await this.fail(entry, phase, reaction.reason);
      return;
    }
    if (reaction.kind === 'pause') {
      this.autoPause(reaction.pauseKind, reaction.reason);
      if (r.state !== 'submitted') {
        // Refused outright (401/402/429): the server did not take it, so it waits for the resume,
        // first in line (the same id may be sent later: the server never had it).
        if (r.state === 'uploading' || r.state === 'submitting') await this.setState(entry, 'discovered');
        entry.where = 'idle';
        this.enqueue(entry, true);
        return;
      }
      // Collecting a job the server has: retried with backoff like a network failure.
    }
    r.attempts += 1;
    if (r.attempts >= this.config.retry.maxAttempts) {
      await this.fail(entry, phase, `${reaction.reason} (gave up after ${r.attempts} attempts)`);
      return;
    }
    // An upload that failed has sent nothing; a submit whose answer was lost keeps its recorded id
    // (state submitting), and the retry asks the server before sending again.
    if (r.state === 'uploading') r.state = 'discovered';
    const delay = retryDelay(r.attempts, this.config.retry, this.deps.random);
    entry.retryAt = this.deps.now() + delay;
    r.reason = `Attempt ${r.attempts} failed: ${reaction.reason} Trying again in ${Math.ceil(delay / 1000)} s.`;
    await this.save(entry);
    entry.where = 'delayed';
    this.refreshRow(entry);
    this.delayed.set(
      entry,
      setTimeout(() => {
        this.delayed.delete(entry);
        entry.where = 'idle';
        this.enqueue(entry);
        this.pump();
      }, delay),
    );
  }

  private autoPause(kind: Exclude<PauseKind, 'user'>, serverText: string): void {
    if (this.paused && this.pauseKind === 'user') return;
    this.paused = true;
    this.pauseKind = kind;
    this.pauseReason = pauseExplanation(kind, serverText);
    this.probeAllowed = false;
    this.scheduleRecheck();
    this.publishStatus();
    this.checkIdle();
  }

  /** After the re-check interval, one file may go: if it gets through, the folder resumes. */
  private scheduleRecheck(): void {
    if (this.recheckTimer) clearTimeout(this.recheckTimer);
    this.recheckTimer = setTimeout(() => {
      this.recheckTimer = null;
      if (!this.paused || this.pauseKind === 'user' || this.stopping) return;
      this.probeAllowed = true;
      this.pump();
    }, this.config.pauseRecheckMs);
  }

  private async fail(entry: Entry, phase: FailedPhase, reason: string): Promise<void> {
    const r = entry.record;
    r.failedPhase = phase;
    r.reason = reason;
    r.attempts = Math.max(1, r.attempts);
    await this.setState(entry, 'failed');
    await this.disposeInputs(entry);
  }

  /** With `processed: 'move'`: the input, its mask and its duplicates go to done/ or failed/. */
  private async disposeInputs(entry: Entry): Promise<void> {
    if (this.config.processed !== 'move') return;
    const r = entry.record;
    const target = r.state === 'done' ? this.config.doneDir : r.state === 'failed' ? this.config.failedDir : null;
    if (!target) return;
    try {
      if (isInside(r.path, this.config.inputDir) && !this.excluded.some((dir) => isInside(r.path, dir))) {
        const moved = await moveInto(r.path, target, r.relPath);
        if (moved) {
          this.pathCache.delete(r.path);
          void this.deps.journal.deletePath(this.config.id, r.path).catch(() => undefined);
          if (this.byPath.get(r.path) === r.contentKey) this.byPath.delete(r.path);
          r.path = moved;
          this.byPath.set(moved, r.contentKey);
        }
        if (r.maskPath && isInside(r.maskPath, this.config.inputDir) && !this.excluded.some((dir) => isInside(r.maskPath!, dir))) {
          const movedMask = await moveInto(r.maskPath, target, join(relative(this.config.inputDir, r.maskPath)));
          if (movedMask) r.maskPath = movedMask;
        }
        await this.save(entry);
        this.refreshRow(entry);
      }
      for (const alias of [...entry.aliases]) {
        const moved = await moveInto(alias, target, relative(this.config.inputDir, alias));
        entry.aliases.delete(alias);
        this.pathCache.delete(alias);
        void this.deps.journal.deletePath(this.config.id, alias).catch(() => undefined);
        const row = this.rows.get(PATH_ROW + alias);
        if (row && moved) this.putRow(PATH_ROW + alias, { ...row, path: moved, updatedAt: this.deps.now() });
      }
    } catch (error) {
      this.warn(`Could not move ${r.path} to ${target}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  // ---- journal and rows -------------------------------------------------------------------------

  private async setState(entry: Entry, state: JournalState): Promise<void> {
    entry.record.state = state;
    await this.save(entry);
    this.refreshRow(entry);
  }

  private save(entry: Entry): Promise<void> {
    entry.record.updatedAt = this.deps.now();
    return this.deps.journal.saveEntry(entry.record);
  }

  private refreshRow(entry: Entry): void {
    const r = entry.record;
    this.putRow(ENTRY_ROW + r.contentKey, {
      folderId: this.config.id,
      path: r.path,
      relPath: r.relPath,
      state: rowState(r.state),
      contentKey: r.contentKey,
      maskPath: r.maskPath,
      promptId: r.promptId,
      attempts: r.attempts,
      reason: r.reason,
      retryAt: entry.where === 'delayed' ? entry.retryAt : null,
      outputs: [...r.outputs],
      duplicateOf: null,
      updatedAt: r.updatedAt,
    });
  }

  private newRow(path: string, relPath: string, state: HotFileState): HotFileRow {
    return {
      folderId: this.config.id,
      path,
      relPath,
      state,
      contentKey: null,
      maskPath: null,
      promptId: null,
      attempts: 0,
      reason: null,
      retryAt: null,
      outputs: [],
      duplicateOf: null,
      updatedAt: this.deps.now(),
    };
  }

  private putRow(key: string, row: HotFileRow): void {
    const published = this.rows.put(key, row);
    this.deps.emit({ type: 'file', folderId: this.config.id, row: published });
    this.publishStatus();
  }

  private dropRow(key: string): void {
    if (this.rows.delete(key)) this.publishStatus();
  }

  /** Folder events are coalesced to one per turn of the event loop: a thousand file changes make one. */
  private publishStatus(): void {
    if (this.statusScheduled) return;
    this.statusScheduled = true;
    setImmediate(() => {
      this.statusScheduled = false;
      this.deps.emit({ type: 'folder', folderId: this.config.id, status: this.status() });
    });
  }

  private warn(message: string): void {
    this.deps.emit({ type: 'warning', folderId: this.config.id, message });
  }

  // ---- idleness ---------------------------------------------------------------------------------

  private busy(): boolean {
    return !this.scanned || this.scanning !== null || this.intake.size > 0 || this.runQueue.length > 0 || this.collectQueue.length > 0 || this.delayed.size > 0 || this.active.size > 0;
  }

  private idleReason(): IdleReason | null {
    if (this.stopped) return 'drained';
    if (!this.busy()) return 'drained';
    const onlyBlocked = this.scanned && this.intake.size === 0 && this.collectQueue.length === 0 && this.active.size === 0;
    if (this.paused && onlyBlocked) return 'paused';
    return null;
  }

  private checkIdle(): void {
    const reason = this.idleReason();
    if (!reason) return;
    if (reason === 'drained' && this.busySinceDrain) {
      this.busySinceDrain = false;
      this.deps.emit({ type: 'drained', folderId: this.config.id, counters: this.rows.counters() });
    }
    this.publishStatus();
    const waiters = [...this.idleWaiters];
    this.idleWaiters.clear();
    for (const resolve of waiters) resolve(reason);
  }
}

/** A failure while delivering outputs of a job that ran: retried as collection, never as a new job. */
class CollectError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'CollectError';
  }
}

function rowState(state: JournalState): HotFileState {
  switch (state) {
    case 'discovered':
      return 'waiting';
    case 'uploading':
      return 'uploading';
    case 'submitting':
      return 'submitting';
    case 'submitted':
      return 'running';
    case 'done':
      return 'done';
    case 'failed':
      return 'failed';
  }
}

/** The value a workflow input takes for an uploaded file: `subfolder/name` on local servers. */
function inputValue(result: UploadResult, kind: 'cloud' | 'local'): string {
  return kind === 'local' && result.subfolder ? `${result.subfolder}/${result.name}` : result.name;
}

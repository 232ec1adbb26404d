// HotFolderService: the hot folders of one connection, for the app core (or the CLI) to host.
// It keeps folder configurations in the store (unless a caller asks it not to, as the CLI does),
// runs one FolderRunner per enabled folder, and fans their events out to listeners.
import { randomUUID } from 'node:crypto';
import { isJsonObject, parseJsonExact, stringifyJsonExact } from '@shared/json';
import type { Store } from '@main/store/store';
import type { ServiceApi } from '@main/service/ports';
import { resolveHotFolderConfig, type HotFolderConfig, type HotFolderInput } from './config';
import { FolderRunner } from './folder-runner';
import type { IdleReason, RunnerDeps } from './runner-deps';
import { heldUnconfirmedSends, WatchJournal } from './journal';
import { JobStore } from '@main/jobs/job-store';
import type { JobFollower } from '@main/jobs/job-follower';
import type { HotFileRow, HotFolderCounters, HotFolderEvent, HotFolderStatus, OutputSink } from './types';
import { ServerPool } from '@main/pool/server-pool';

export interface HotFolderServiceDeps {
  store: Store;
  api: ServiceApi;
  /** The events socket's client id (submits carry it so a local server routes the job's events to us). */
  clientId: string | (() => string);
  follower: JobFollower;
  sink?: OutputSink | null;
  now?: () => number;
  newPromptId?: () => string;
  random?: () => number;
  /** See RunnerDeps.prepareWorkflow (the app puts a pool folder's fixed inputs on each server). */
  prepareWorkflow?: RunnerDeps['prepareWorkflow'];
  /** The settings profile of the server, recorded with each job in the job journal. */
  profileId?: string | null;
  /**
   * The pool a folder's files go to; null or absent: the connection above (api, clientId,
   * follower) as a pool of one, today's single server; UnusablePool: the folder's pool cannot be
   * used now, so the folder waits (paused, servers_down) until it is hosted again (update(), or a
   * new service). The caller owns the pools it returns.
   */
  poolFor?: (config: HotFolderConfig) => ServerPool | UnusablePool | null;
}

/** A folder's pool that cannot be used now, and why (in words for the user: the folder's pause reason). */
export interface UnusablePool {
  unusable: string;
}

export interface AddOptions {
  /** Keep the configuration in the store so start() brings the folder back (default true). */
  persist?: boolean;
  /** Watch for new files after the start-up scan (default true; false = process what is there). */
  watch?: boolean;
  /** Start paused. */
  paused?: boolean;
}

export class HotFolderNotFoundError extends Error {
  constructor(id: string) {
    super(`There is no hot folder "${id}".`);
    this.name = 'HotFolderNotFoundError';
  }
}

interface Hosted {
  config: HotFolderConfig;
  runner: FolderRunner | null;
  options: Required<AddOptions>;
}

export class HotFolderService {
  private readonly deps: HotFolderServiceDeps;
  private readonly folders = new Map<string, Hosted>();
  private readonly listeners = new Set<(event: HotFolderEvent) => void>();
  private journal: WatchJournal | null = null;
  /** The job journal, where each file's job is recorded with origin 'hot-folder' before it is sent. */
  private jobs: JobStore | null = null;
  private started: Promise<void> | null = null;
  /** The connection of `deps` as a pool of one, shared by the folders that use no other pool. */
  private singlePool: ServerPool | null = null;
  private disposed = false;

  constructor(deps: HotFolderServiceDeps) {
    this.deps = deps;
  }

  /** Opens the journal (applying its migrations) and starts every saved, enabled folder. */
  start(): Promise<void> {
    this.started ??= this.doStart();
    return this.started;
  }

  private async doStart(): Promise<void> {
    this.journal = await WatchJournal.open(this.deps.store);
    this.jobs = await JobStore.open(this.deps.store, { heldSends: () => heldUnconfirmedSends(this.deps.store) });
    for (const saved of await this.journal.listFolders()) {
      let config: HotFolderConfig;
      try {
        const value = parseJsonExact(saved.config);
        config = resolveHotFolderConfig(isJsonObject(value) ? { ...value, id: saved.id } : value, randomUUID);
      } catch (error) {
        this.emit({
          type: 'warning',
          folderId: saved.id,
          message: `The saved hot folder ${saved.id} cannot be used: ${error instanceof Error ? error.message : String(error)}`,
        });
        continue;
      }
      await this.host(config, { persist: true, watch: true, paused: saved.paused });
    }
  }

  /** Stops every folder: uploads and submissions under way finish; jobs on the server are collected next time. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.started?.catch(() => undefined);
    // The folders stay listed (stopped), so a caller can still read their last counters and files.
    await Promise.all([...this.folders.values()].map((hosted) => hosted.runner?.stop()));
    await this.journal?.flushed().catch(() => undefined);
    this.singlePool?.dispose();
  }

  on(listener: (event: HotFolderEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async add(input: HotFolderInput, options: AddOptions = {}): Promise<HotFolderConfig> {
    await this.start();
    const config = resolveHotFolderConfig(input, randomUUID);
    if (this.folders.has(config.id)) throw new Error(`A hot folder "${config.id}" already exists; update it instead.`);
    const overlapping = [...this.folders.values()].find((h) => h.config.inputDir === config.inputDir);
    if (overlapping) throw new Error(`The folder ${config.inputDir} is already the hot folder "${overlapping.config.name}".`);
    const resolved = { persist: options.persist ?? true, watch: options.watch ?? true, paused: options.paused ?? false };
    if (resolved.persist) await this.requireJournal().saveFolder(config.id, storedConfigText(config), this.now(), resolved.paused);
    await this.host(config, resolved);
    return config;
  }

  /** Changes a folder's configuration; its runner restarts with it (the journal, keyed by content, carries over). */
  async update(id: string, patch: Partial<HotFolderInput>): Promise<HotFolderConfig> {
    const hosted = this.require(id);
    const { doneDir: _d, failedDir: _f, ...current } = hosted.config;
    const config = resolveHotFolderConfig({ ...current, ...patch, id }, randomUUID);
    await hosted.runner?.stop();
    this.folders.delete(id);
    if (hosted.options.persist) await this.requireJournal().saveFolder(id, storedConfigText(config), this.now());
    await this.host(config, hosted.options);
    return config;
  }

  /**
   * Stops a folder and forgets it, its journal included (its files and outputs stay on disk).
   * Returns the prompt ids its files' jobs had: with the folder gone nobody resends or collects
   * them, so the caller has the tracker settle those the job journal still has in flight
   * (JobTracker.reconcile({ only })): an unconfirmed send, or one of a file the folder gave up on;
   * left alone, they are settled at the next start.
   */
  async remove(id: string): Promise<string[]> {
    const hosted = this.require(id);
    this.folders.delete(id);
    await hosted.runner?.stop();
    // Once the runner has stopped: no send of it is under way any more.
    return this.requireJournal().deleteFolder(id);
  }

  list(): { config: HotFolderConfig; status: HotFolderStatus }[] {
    return [...this.folders.values()].map((h) => ({ config: h.config, status: this.statusOf(h) }));
  }

  status(id: string): HotFolderStatus {
    return this.statusOf(this.require(id));
  }

  counters(id: string): HotFolderCounters {
    return this.status(id).counters;
  }

  files(id: string): HotFileRow[] {
    return this.require(id).runner?.files() ?? [];
  }

  /** Pauses a folder: nothing new is sent (jobs already on the server are still collected). A saved folder stays paused across restarts. */
  pause(id: string): void {
    const hosted = this.require(id);
    hosted.runner?.pause();
    this.rememberPause(hosted, true);
  }

  /** Resumes a folder paused by the user, or one paused for its account (after the key, credits or subscription were fixed). */
  resume(id: string): void {
    const hosted = this.require(id);
    hosted.runner?.resume();
    this.rememberPause(hosted, false);
  }

  private rememberPause(hosted: Hosted, paused: boolean): void {
    hosted.options.paused = paused;
    if (!hosted.options.persist) return;
    this.requireJournal()
      .setFolderPaused(hosted.config.id, paused)
      .catch((error: unknown) => this.emit({ type: 'warning', folderId: hosted.config.id, message: `Could not save the pause: ${String(error)}` }));
  }

  retryFailed(id: string, paths?: readonly string[]): Promise<number> {
    return this.require(id).runner?.retryFailed(paths) ?? Promise.resolve(0);
  }

  /** Resolves once the folder has nothing left to do ('drained'), or is paused with only blocked work ('paused'). */
  whenIdle(id: string): Promise<IdleReason> {
    return this.require(id).runner?.whenIdle() ?? Promise.resolve('drained');
  }

  private async host(config: HotFolderConfig, options: Required<AddOptions>): Promise<void> {
    const hosted: Hosted = { config, runner: null, options };
    this.folders.set(config.id, hosted);
    if (!config.enabled) return;
    const chosen = this.deps.poolFor?.(config) ?? null;
    // An unusable pool: the runner gets the single connection only to be constructed; it sends
    // and collects nothing while it is told the pool cannot be used.
    const unusable = chosen instanceof ServerPool || chosen === null ? null : chosen.unusable;
    const runner = new FolderRunner(
      config,
      {
        journal: this.requireJournal(),
        jobs: this.jobs,
        profileId: this.deps.profileId ?? null,
        pool: chosen instanceof ServerPool ? chosen : this.connectionPool(),
        sink: this.deps.sink ?? null,
        emit: (event) => this.emit(event),
        now: () => this.now(),
        ...(this.deps.newPromptId ? { newPromptId: this.deps.newPromptId } : {}),
        ...(this.deps.random ? { random: this.deps.random } : {}),
        ...(this.deps.prepareWorkflow ? { prepareWorkflow: this.deps.prepareWorkflow } : {}),
      },
      { watch: options.watch, paused: options.paused, ...(unusable !== null ? { poolUnusable: unusable } : {}) },
    );
    hosted.runner = runner;
    await runner.start();
  }

  private connectionPool(): ServerPool {
    const { api, follower, clientId } = this.deps;
    this.singlePool ??= new ServerPool([
      { name: api.profile.baseUrl, api, follower, clientId: typeof clientId === 'string' ? () => clientId : clientId, concurrency: null },
    ]);
    return this.singlePool;
  }

  private statusOf(hosted: Hosted): HotFolderStatus {
    if (hosted.runner) return hosted.runner.status();
    return {
      id: hosted.config.id,
      name: hosted.config.name,
      counters: { waiting: 0, running: 0, done: 0, failed: 0, duplicates: 0 },
      paused: true,
      pauseKind: 'user',
      pauseReason: 'The folder is disabled.',
      scanned: false,
      idle: true,
    };
  }

  private require(id: string): Hosted {
    const hosted = this.folders.get(id);
    if (!hosted) throw new HotFolderNotFoundError(id);
    return hosted;
  }

  private requireJournal(): WatchJournal {
    if (!this.journal) throw new Error('The hot folder service has not been started.');
    return this.journal;
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  private emit(event: HotFolderEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure must not stop the folders.
      }
    }
  }
}

/** The stored form of a configuration: exact JSON (a workflow's 64-bit seed stays exact). */
export function storedConfigText(config: HotFolderConfig): string {
  const { doneDir: _d, failedDir: _f, ...stored } = config;
  return stringifyJsonExact(stored);
}

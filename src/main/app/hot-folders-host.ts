// Hosts the hot folders in the app: one HotFolderService on the active profile's connection,
// rebuilt when the profile changes; folders set to "Run on: Pool" run on the pool host's pool
// (opened when a folder needs it); their contract calls (hotFolders.*, dialog.pickFolder) and
// events; outputs into the library. With no server connected the saved folders are still listed
// (paused, with the reason) and can be added, edited, paused or removed: they are configurations
// in the store, which the next service starts.
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallHandlers, EventName, EventPayload } from '@shared/ipc/contract';
import type { HotFileView, HotFolderSaveInput, HotFolderView, hotFolderCalls } from '@shared/ipc/hot-folders-contract';
import type { Store } from '@main/store/store';
import type { Library } from '../library';
import {
  HotFolderConfigError,
  HotFolderService,
  librarySink,
  resolveHotFolderConfig,
  trackerFollower,
  type HotFileRow,
  type HotFolderConfig,
  type HotFolderEvent,
  type OutputSink,
} from '../watch';
import type { JobTracker } from '@main/jobs/tracker';
import type { ServerPool } from '@main/pool/server-pool';
import { WatchJournal } from '@main/watch/journal';
import { storedConfigText, type UnusablePool } from '@main/watch/service';
import type { FileDialogs, LogLevel } from './ports';
import type { DesktopActions } from './desktop';
import { AppFailure } from './errors';
import { guard, guardSync } from './hot-folder-errors';
import { checkImageBind, checkOverlap, configFromSave, parseSaved, parseSaveWorkflow, stripDerived } from './hot-folder-save';
import { LatestWins } from '@shared/latest-wins';
import { countersOfStates, drainedText, entryRow, fileView, folderView, jobProgress, offlineStatus } from './hot-folder-views';
import type { ProfileSession } from './session';
import type { LivePool } from './live-pool';
import type { PoolHost } from './pool-host';
import { fixedInputsCopier } from './pool-inputs';
import { describeError } from '@shared/describe-error';

export type HotFolderCallName = keyof typeof hotFolderCalls;

export interface HotFoldersHostDeps {
  store: Store;
  library: () => Library | null;
  emit: <E extends EventName>(name: E, payload: EventPayload<E>) => void;
  log: (level: LogLevel, message: string) => void;
  now: () => number;
  dialogs: FileDialogs | null;
  desktop: DesktopActions | null;
  /** Per-row throttle of hotFolders.file (ms). Default 100. */
  fileEventMs?: number;
  /** Per-folder throttle of hotFolders.changed (ms). Default 250. */
  folderEventMs?: number;
  /** The pool that folders set to "Run on: Pool" run on. */
  pools: PoolHost;
  /** The profile name of the server at a base URL, for file rows. */
  serverName?: (baseUrl: string) => string | null;
  /**
   * A removed folder's jobs that have not ended: the library records their outputs from now on
   * (JobStore.handOverToLibrary), since the folder will not import them.
   */
  handOverToLibrary?: (promptIds: readonly string[]) => Promise<void>;
  /** Where a pool folder's fixed images pass on their way to another pool server (default: the temp folder). */
  poolTempDir?: string;
}

/** How long a save waits for the server's node definitions to check the bound input. */
const DEFINITIONS_WAIT_MS = 3000;

interface Live {
  session: ProfileSession;
  service: HotFolderService;
  off: Array<() => void>;
}

export class HotFoldersHost {
  private readonly deps: HotFoldersHostDeps;
  /** The journal for folders while no service runs. */
  private readonly ready: Promise<WatchJournal>;
  private live: Live | null = null;
  /** attach/detach one after another; calls wait for the one under way. */
  private transition: Promise<void> = Promise.resolve();
  /** Which file row a running job belongs to, for progress events. */
  private readonly rowOfJob = new Map<string, HotFileRow>();
  private readonly fileEvents: LatestWins<HotFileView>;
  private readonly folderEvents: LatestWins<HotFolderView>;
  private disposed = false;
  /** Why folders are paused while no session runs (a removed server says so); null: no server. */
  private offlineReason: string | null = null;

  constructor(deps: HotFoldersHostDeps) {
    this.deps = deps;
    this.fileEvents = new LatestWins(deps.fileEventMs ?? 100, (view) => deps.emit('hotFolders.file', view));
    this.folderEvents = new LatestWins(deps.folderEventMs ?? 250, (view) => deps.emit('hotFolders.changed', view));
    this.ready = WatchJournal.open(deps.store);
    this.ready.catch((error: unknown) => deps.log('error', `The hot folders' journal cannot be opened: ${describeError(error)}`));
  }

  /** Starts the saved folders on this session's connection. */
  attach(session: ProfileSession): Promise<void> {
    this.offlineReason = null;
    return this.serially(async () => {
      await this.stopLive();
      await this.host(session);
    });
  }

  private async host(session: ProfileSession): Promise<void> {
    if (this.disposed) return;
    await this.ready;
    const service = new HotFolderService({
      store: this.deps.store,
      api: session.api,
      clientId: () => session.events.clientId,
      follower: trackerFollower(session.tracker),
      profileId: session.profileId,
      sink: this.sinkFor(() => live),
      now: this.deps.now,
      poolFor: (config) => this.poolFor(config),
      prepareWorkflow: fixedInputsCopier(
        () => ({ api: session.api, definitions: session.cachedDefinitions() }),
        this.deps.poolTempDir ?? join(tmpdir(), 'flowdeck-pool-inputs'),
      ),
    });
    const live: Live = { session, service, off: [] };
    const pools = this.deps.pools;
    const followPool = (pool: LivePool): void => {
      for (const tracker of pool.trackers()) if (tracker !== session.tracker) live.off.push(this.followProgress(live, tracker));
    };
    live.off.push(
      service.on((event) => this.onServiceEvent(live, event)),
      this.followProgress(live, session.tracker),
      pools.onOpened(followPool),
    );
    this.live = live;
    const open = pools.current();
    if (open) followPool(open);
    // The pool first, ready (its servers' definitions read), so its folders start on it.
    if ((await this.savedConfigs()).some((c) => c.runOn === 'pool' && c.enabled))
      await pools.ensureOpen().catch((error: unknown) => this.deps.log('error', `The pool could not be opened: ${describeError(error)}`));
    await service.start();
    for (const { config, status } of service.list()) this.folderEvents.offer(config.id, folderView(config, status));
  }

  /** The reason folders show while no server runs them, until the next attach. */
  setOfflineReason(reason: string): void {
    this.offlineReason = reason;
  }

  /** Stops the folders before their session goes (uploads under way finish); their configurations stay. */
  detach(): Promise<void> {
    return this.serially(async () => {
      await this.stopLive();
      if (this.disposed) return;
      for (const view of await this.offlineFolders()) this.folderEvents.offer(view.id, view);
    }).catch((error: unknown) => this.deps.log('error', `Could not stop the hot folders cleanly: ${describeError(error)}`));
  }

  /** Restarts the folders on the same session, the pool opened afresh (the pool's settings changed). */
  restart(): Promise<void> {
    return this.serially(async () => {
      const session = this.live?.session;
      await this.stopLive();
      await this.deps.pools.restart();
      if (session) await this.host(session);
    });
  }

  handlers(): Pick<CallHandlers, HotFolderCallName> {
    return {
      'hotFolders.list': async () => ({ folders: await this.listFolders() }),
      'hotFolders.save': (input) => this.save(input),
      'hotFolders.remove': async ({ id }) => {
        await this.remove(id);
        return { folders: await this.listFolders() };
      },
      'hotFolders.pause': ({ id }) => this.setPaused(id, true),
      'hotFolders.resume': ({ id }) => this.setPaused(id, false),
      'hotFolders.retryFailed': async ({ id }) => {
        const live = await this.current();
        if (!live) {
          await this.savedConfig(id);
          throw new AppFailure('network', 'No server is connected, so failed files cannot be retried now. Connect a server profile and try again.');
        }
        return { count: await guard(() => live.service.retryFailed(id)) };
      },
      'hotFolders.files': async ({ id }) => ({ files: await this.files(id) }),
      'hotFolders.openOutput': async ({ id }) => {
        const config = await this.configOf(id);
        if (!this.deps.desktop) throw new AppFailure('invalid_input', `There is no file manager here; the output folder is ${config.outputDir}`);
        await mkdir(config.outputDir, { recursive: true });
        try {
          await this.deps.desktop.openPath(config.outputDir);
        } catch (error) {
          throw new AppFailure('invalid_input', `The output folder ${config.outputDir} could not be opened: ${describeError(error)}`);
        }
        return null;
      },
      'dialog.pickFolder': async (input) => {
        if (!this.deps.dialogs) throw new AppFailure('invalid_input', 'No folder dialog here: type the path.');
        return { path: await this.deps.dialogs.pickFolder(input?.title ?? 'Choose a folder') };
      },
    };
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.serially(() => this.stopLive());
    this.fileEvents.clear();
    this.folderEvents.clear();
    await (await this.ready.catch(() => null))?.flushed().catch(() => undefined);
  }

  // ---- calls --------------------------------------------------------------------------------------

  private async listFolders(): Promise<HotFolderView[]> {
    const live = await this.current();
    if (live) return live.service.list().map(({ config, status }) => folderView(config, status));
    return this.offlineFolders();
  }

  private async save(input: HotFolderSaveInput): Promise<HotFolderView> {
    const workflow = parseSaveWorkflow(input.workflowJson);
    const live = await this.current();
    checkImageBind(workflow, input.bind, live ? await live.session.definitionsWithin(DEFINITIONS_WAIT_MS) : null);
    const existing = live ? live.service.list().map((f) => f.config) : await this.savedConfigs();
    const current = input.id === undefined ? null : (existing.find((c) => c.id === input.id) ?? null);
    if (input.id !== undefined && !current) throw new AppFailure('not_found', `There is no hot folder "${input.id}".`);
    const wanted = configFromSave(input, workflow, current);
    let config: HotFolderConfig;
    try {
      // With the current values under the new ones, as the service's update() merges them.
      const merged = current ? { ...stripDerived(current), ...wanted } : wanted;
      config = resolveHotFolderConfig(merged, randomUUID);
    } catch (error) {
      if (error instanceof HotFolderConfigError) throw new AppFailure('invalid_input', error.message);
      throw error;
    }
    checkOverlap(config, existing);
    const pools = this.deps.pools;
    if (live && config.runOn === 'pool' && config.enabled && !pools.current()) {
      await pools.ensureOpen().catch((error: unknown) => {
        throw new AppFailure('invalid_input', `The pool cannot be used: ${describeError(error)}`);
      });
      const problem = pools.problemText();
      if (!pools.current())
        throw new AppFailure(
          'invalid_input',
          `The pool has no server that can be used${problem ? ` (${problem})` : ''}. Add servers to the pool in Servers (each with its key), or run the folder on the active server.`,
        );
    }
    if (live) {
      const saved = await guard(() => (current ? live.service.update(config.id, wanted) : live.service.add({ ...wanted, id: config.id })));
      const view = folderView(saved, live.service.status(saved.id));
      this.folderEvents.offer(saved.id, view);
      return view;
    }
    const journal = await this.ready;
    await journal.saveFolder(config.id, storedConfigText(config), this.deps.now());
    const view = await this.offlineView(journal, config);
    this.folderEvents.offer(config.id, view);
    return view;
  }

  private async remove(id: string): Promise<void> {
    const live = await this.current();
    if (live) {
      const promptIds = await guard(() => live.service.remove(id));
      // Before settling: a job that ends from here on must find its outputs' new route.
      await this.handOver(promptIds);
      if (promptIds.length > 0) this.settleSends(live, promptIds);
    } else {
      await this.savedConfig(id);
      // Settled at the next start with the others in flight; their outputs then go to the library.
      await this.handOver(await (await this.ready).deleteFolder(id));
    }
    // Nothing more about a folder that is gone.
    this.fileEvents.clear((key) => key.startsWith(`${id}\u0000`));
    this.folderEvents.clear((key) => key === id);
    for (const [promptId, row] of this.rowOfJob) if (row.folderId === id) this.rowOfJob.delete(promptId);
  }

  private async setPaused(id: string, paused: boolean): Promise<HotFolderView> {
    const live = await this.current();
    if (live) {
      await guard(async () => (paused ? live.service.pause(id) : live.service.resume(id)));
      const hosted = live.service.list().find((f) => f.config.id === id);
      if (!hosted) throw new AppFailure('not_found', `There is no hot folder "${id}".`);
      const view = folderView(hosted.config, hosted.status);
      this.folderEvents.offer(id, view);
      return view;
    }
    const config = await this.savedConfig(id);
    const journal = await this.ready;
    await journal.setFolderPaused(id, paused);
    const view = await this.offlineView(journal, config, paused);
    this.folderEvents.offer(id, view);
    return view;
  }

  private async files(id: string): Promise<HotFileView[]> {
    const live = await this.current();
    if (live) {
      const rows = guardSync(() => live.service.files(id));
      return rows.map((row) => this.fileViewOf(row, row.state === 'running' && row.promptId ? jobProgress(this.trackerOf(live, row).get(row.promptId)) : null));
    }
    await this.savedConfig(id);
    const { entries } = await (await this.ready).load(id);
    return entries.map((entry) => this.fileViewOf(entryRow(entry), null));
  }

  private async configOf(id: string): Promise<HotFolderConfig> {
    const live = await this.current();
    if (live) {
      const hosted = live.service.list().find((f) => f.config.id === id);
      if (!hosted) throw new AppFailure('not_found', `There is no hot folder "${id}".`);
      return hosted.config;
    }
    return this.savedConfig(id);
  }

  /**
   * Settles the unconfirmed sends of a folder just removed, as the tracker settles any job (followed
   * to its end when the server has it, ended as never submitted when not), each by the tracker of
   * its server. A send on a server not connected now is settled when that server's session starts.
   */
  private async handOver(promptIds: readonly string[]): Promise<void> {
    if (promptIds.length === 0 || !this.deps.handOverToLibrary) return;
    await this.deps
      .handOverToLibrary(promptIds)
      .catch((error: unknown) => this.deps.log('warn', `The outputs of a removed hot folder's jobs may not reach the library: ${describeError(error)}`));
  }

  private settleSends(live: Live, promptIds: string[]): void {
    const trackers = new Set([live.session.tracker, ...(this.deps.pools.current()?.trackers() ?? [])]);
    for (const tracker of trackers) {
      void tracker
        .reconcile({ only: promptIds })
        .catch((error: unknown) => this.deps.log('warn', `Could not settle the sends of a removed hot folder: ${describeError(error)}`));
    }
  }

  // ---- events -------------------------------------------------------------------------------------

  private onServiceEvent(live: Live, event: HotFolderEvent): void {
    if (this.live !== live) return;
    switch (event.type) {
      case 'file': {
        const row = event.row;
        if (row.promptId) {
          if (row.state === 'running' || row.state === 'submitting') this.rowOfJob.set(row.promptId, row);
          else this.rowOfJob.delete(row.promptId);
        }
        this.offerFile(row, row.state === 'running' && row.promptId ? jobProgress(this.trackerOf(live, row).get(row.promptId)) : null);
        return;
      }
      case 'folder': {
        const hosted = live.service.list().find((f) => f.config.id === event.folderId);
        if (hosted) this.folderEvents.offer(event.folderId, folderView(hosted.config, event.status));
        return;
      }
      case 'drained': {
        // The rows and the folder's status first, so the view is complete when "drained" arrives.
        this.fileEvents.flush((key) => key.startsWith(`${event.folderId}\u0000`));
        this.folderEvents.flush((key) => key === event.folderId);
        const name = live.service.list().find((f) => f.config.id === event.folderId)?.config.name ?? event.folderId;
        this.deps.emit('hotFolders.drained', { folderId: event.folderId, name, counters: { ...event.counters } });
        this.deps.desktop?.notify(`Hot folder ${name}`, drainedText(event.counters));
        return;
      }
      case 'output':
        return;
      case 'warning':
        this.deps.log('warn', `hot folder ${event.folderId}: ${event.message}`);
        return;
    }
  }

  private offerFile(row: HotFileRow, progress: number | null): void {
    this.fileEvents.offer(`${row.folderId}\u0000${row.relPath}`, this.fileViewOf(row, progress));
  }

  private fileViewOf(row: HotFileRow, progress: number | null): HotFileView {
    return fileView(row, progress, row.server ? (this.deps.serverName?.(row.server) ?? null) : null);
  }

  // ---- the pool -----------------------------------------------------------------------------------

  /**
   * A folder's pool: the live pool for "Run on: Pool" (null = the active server, a pool of one).
   * With no usable pool the folder waits, paused with the reason, rather than run elsewhere than
   * the user chose: the folders are hosted again when the pool's settings, a pool server's profile
   * or its key change (restart()), or when the folder is set to run on the active server.
   */
  private poolFor(config: HotFolderConfig): ServerPool | UnusablePool | null {
    if (config.runOn !== 'pool') return null;
    const open = this.deps.pools.current();
    if (open) return open.pool;
    const unusable = `No server of the pool can be used: ${this.deps.pools.problemText() ?? 'the pool could not be opened.'} The folder runs by itself once the pool can be used (set it in Servers), or set it to run on the active server.`;
    // Said at each start of the folder (a notice too: the folder's card is not always in view).
    const message = `The hot folder "${config.name}" waits. ${unusable}`;
    this.deps.log('warn', message);
    this.deps.emit('app.notice', { level: 'warning', message });
    return { unusable };
  }

  /** Progress of the running rows whose jobs `tracker` follows. */
  private followProgress(live: Live, tracker: JobTracker): () => void {
    return tracker.onUpdate((snapshot) => {
      const row = this.rowOfJob.get(snapshot.promptId);
      if (row && this.live === live && row.state === 'running') this.offerFile(row, jobProgress(snapshot));
    });
  }

  /** The tracker of the server a row's job went to. */
  private trackerOf(live: Live, row: HotFileRow): JobTracker {
    return this.deps.pools.current()?.trackerFor(row.server) ?? live.session.tracker;
  }

  /** The library sink; each output is recorded with the profile of the server that made it. */
  private sinkFor(live: () => Live): OutputSink {
    const library = (): ReturnType<HotFoldersHostDeps['library']> => this.deps.library();
    const profileOf = (baseUrl: string): string => this.deps.pools.current()?.profileFor(baseUrl)?.id ?? live().session.profileId;
    const base = librarySink(library, null);
    return {
      add: (output, staged) => librarySink(library, profileOf(output.provenance.server.baseUrl)).add(output, staged),
      ...(base.prepare ? { prepare: base.prepare } : {}),
    };
  }

  // ---- saved folders (no server connected) ---------------------------------------------------------

  private async savedConfigs(): Promise<HotFolderConfig[]> {
    const journal = await this.ready;
    const configs: HotFolderConfig[] = [];
    for (const saved of await journal.listFolders()) {
      const config = parseSaved(saved.id, saved.config);
      if (config) configs.push(config);
      else this.deps.log('warn', `The saved hot folder ${saved.id} cannot be read; it is left out.`);
    }
    return configs;
  }

  private async savedConfig(id: string): Promise<HotFolderConfig> {
    const config = (await this.savedConfigs()).find((c) => c.id === id);
    if (!config) throw new AppFailure('not_found', `There is no hot folder "${id}".`);
    return config;
  }

  private async offlineFolders(): Promise<HotFolderView[]> {
    const journal = await this.ready;
    const saved = await journal.listFolders();
    const views: HotFolderView[] = [];
    for (const folder of saved) {
      const config = parseSaved(folder.id, folder.config);
      if (config) views.push(await this.offlineView(journal, config, folder.paused));
    }
    return views;
  }

  private async offlineView(journal: WatchJournal, config: HotFolderConfig, paused?: boolean): Promise<HotFolderView> {
    const pausedByUser = paused ?? (await journal.listFolders()).find((f) => f.id === config.id)?.paused ?? false;
    return folderView(config, offlineStatus(countersOfStates(await journal.stateCounts(config.id)), pausedByUser, this.offlineReason));
  }

  // ---- plumbing -----------------------------------------------------------------------------------

  /** The running service after any attach or detach under way; null when no server is connected. */
  private async current(): Promise<Live | null> {
    await this.transition;
    if (this.disposed) throw new AppFailure('internal', 'The app is shutting down.');
    return this.live;
  }

  private serially(task: () => Promise<void>): Promise<void> {
    const run = this.transition.then(task, task);
    // The caller hears of a failure; the next transition runs regardless.
    this.transition = run.catch(() => undefined);
    return run;
  }

  private async stopLive(): Promise<void> {
    const live = this.live;
    if (!live) return;
    this.live = null;
    for (const off of live.off.splice(0)) off();
    await live.service.dispose();
    this.rowOfJob.clear();
    this.fileEvents.flush();
  }
}

// The app core: the composition root of every contract call's handler and the events main sends
// to the renderer, in plain Node, with start and stop. Electron (IPC) and the browser harness
// (WebSocket) are thin transports over it; tests drive it directly; its ports are in ports.ts.
// Each decision has a file of its own: profiles and keys (profile-directory.ts), the active server
// (active-server.ts), connection tests (connection-handlers.ts), the pool (pool-host.ts), where
// outputs go (output-recording.ts).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CallHandlers, EventPayload, JobSnapshotView } from '@shared/ipc/contract';
import { isNoteName } from '@shared/ipc/names';
import { HARNESS_MEDIA_BASE } from '@shared/library-media';
import { describeError } from '@shared/describe-error';
import { dataPaths } from '@main/config/data-dir';
import { settingsSetAsideNotice } from '@main/config/settings';
import { JobStore } from '@main/jobs/job-store';
import type { JobSnapshot } from '@main/jobs/types';
import { Store } from '@main/store/store';
import { storeResetNotice } from '@main/store/store-reset';
import { heldUnconfirmedSends } from '@main/watch/journal';
import { Library } from '../library';
import type { ServerProfile } from '@main/service/types';
import { ActiveServer } from './active-server';
import { createAppLayoutHandlers } from './app-layout-handlers';
import { AppLayoutStore } from './app-layout-store';
import { createConnectionHandlers } from './connection-handlers';
import { createInvoke } from './envelope';
import { AppFailure } from './errors';
import { EventHub } from './event-hub';
import { FirstScreen } from './first-screen';
import { createHistoryHandlers } from './history-handlers';
import { hotFolderHandlers } from './hot-folder-handlers';
import { HotFoldersHost } from './hot-folders-host';
import { nextLibraryDir } from './library-folder';
import { createJobHandlers } from './job-handlers';
import { KeyVault } from './keys';
import { forwardLibraryChanges } from './library-events';
import { createLibraryHandlers } from './library-handlers';
import { serveLibraryMedia } from './library-media-server';
import { LivePool } from './live-pool';
import { OutputCache } from './output-cache';
import { OutputRecording } from './output-recording';
import { createPoolHandlers } from './pool-handlers';
import { PoolHost } from './pool-host';
import type { AppCore, AppCoreDeps, LogLevel } from './ports';
import { PreviewGate } from './preview-gate';
import { ProfileDirectory } from './profile-directory';
import { createProfileHandlers } from './profile-handlers';
import { readServerQueue } from './pool-queue';
import { createTemplateHandlers } from './template-handlers';
import { createUploadHandlers } from './upload-handlers';
import { createWorkflowHandlers } from './workflow-handlers';
import { settleDemoJobs } from './demo';

export type { AppCore, AppCoreDeps, LogLevel, StartDemo } from './ports';

const DEMO_PROFILE_NAME = 'Demo';

export function createAppCore(deps: AppCoreDeps): AppCore {
  const now = deps.now ?? Date.now;
  const version = deps.version ?? '0.0.0';
  const vault = new KeyVault(deps.secrets);
  const log = (level: LogLevel, message: string): void => deps.log?.(level, vault.redact(message));
  /** Notices from start-up, repeated to each renderer that becomes ready (it may open later). */
  const notices: EventPayload<'app.notice'>[] = [];
  /** Tells the user of something main did on its own (a damaged file set aside), once, now and later. */
  const tellUser = (message: string): void => {
    const notice = { level: 'warning' as const, message };
    log('warn', message);
    notices.push(notice);
    hub.emit('app.notice', notice);
  };
  const hub = new EventHub((error) => log('error', `event listener failed: ${describeError(error)}`));
  const emit = hub.emit.bind(hub);
  const previews = new PreviewGate((frame) => hub.emit('job.preview', frame));
  const paths = dataPaths(deps.dataDir);
  const outputs = new OutputCache(join(paths.cache, 'outputs'));
  /** What can wait for the first screen (hot folders, resumed downloads) waits for it. */
  const firstScreen = new FirstScreen();

  let store: Store | null = null;
  let jobs: JobStore | null = null;
  let library: Library | null = null;
  let stopLibraryEvents: (() => void) | null = null;
  let stopSettingsNotices: (() => void) | null = null;
  let hotFolders: HotFoldersHost | null = null;
  let started = false;
  let disposed = false;

  const profiles = new ProfileDirectory({ settings: deps.settings, vault, startDemo: deps.startDemo, log });
  const recording = new OutputRecording({ jobs: () => jobs, library: () => library, log });
  const polling = deps.pollIntervalMs !== undefined ? { pollIntervalMs: deps.pollIntervalMs } : {};
  const jobEnded = (snapshot: JobSnapshot, profileId: string, server: ServerProfile): void => void recording.record(snapshot, profileId, server);
  const pools = new PoolHost({
    emitStatus: (status) => hub.emit('pool.status', status),
    // The pool's servers as the settings say when it opens, the active session reused.
    open: (session) => {
      const { pool: entries, profiles: saved } = deps.settings.read();
      const events = { warn: (message: string) => log('warn', message), job: (snapshot: JobSnapshotView) => hub.emit('job.update', snapshot), jobEnded };
      return jobs
        ? LivePool.open({ entries, profiles: saved, ...profiles.access(), connect: deps.connect, previews, now, ...polling, ...events, jobs }, session)
        : Promise.resolve(null);
    },
  });
  const active = new ActiveServer({
    settings: deps.settings,
    profiles,
    connect: deps.connect,
    previews,
    pools,
    now,
    ...polling,
    emit,
    log,
    jobs: () => jobs,
    library: () => library,
    hotFolders: () => hotFolders,
    jobEnded,
    firstScreen: firstScreen.shown(),
  });

  /** What start() opens; a call that comes before is told to wait. */
  const opened = <T>(value: T | null): T => {
    if (value === null) throw new AppFailure('internal', 'The app is still starting; try again in a moment.');
    return value;
  };
  const requireLibrary = (): Library => opened(library);
  const requireJobs = (): JobStore => opened(jobs);

  const libraryHandlers = createLibraryHandlers({
    library: requireLibrary,
    desktop: deps.desktop ?? null,
    mediaBase: deps.mediaBase ?? HARNESS_MEDIA_BASE,
    profileName: (id) => deps.settings.read().profiles.find((p) => p.id === id)?.name ?? null,
    folder: { dataDir: deps.dataDir, settings: deps.settings },
  });
  const handlers: CallHandlers = {
    ...libraryHandlers,
    ...hotFolderHandlers(
      () => hotFolders,
      () => active.workStarted(),
    ),
    ...createProfileHandlers({ settings: deps.settings, vault, profiles, active, hotFolders: () => hotFolders, emit }),
    ...createConnectionHandlers({ profiles, active }),
    ...createWorkflowHandlers({
      settings: deps.settings,
      dialogs: deps.dialogs ?? null,
      allowAnyPath: deps.allowAnyPath === true,
      session: () => active.current(),
      requireLibrary,
    }),
    ...createJobHandlers({
      now,
      log,
      session: () => active.current(),
      requireSession: () => active.requireSession(),
      requireJobs,
      withServerApi: (server, profileId, use) => active.withServerApi(server, profileId, use),
      outputs,
      usePool: () => pools.use(),
      currentPool: () => pools.current(),
      poolIsSet: () => deps.settings.read().pool.length > 0,
      poolTempDir: join(paths.cache, 'pool-inputs'),
      notify: (message) => hub.emit('app.notice', { level: 'warning', message }),
    }),
    ...createHistoryHandlers({ requireJobs, requireSession: () => active.requireSession() }),
    ...createAppLayoutHandlers({
      store: new AppLayoutStore({ dataDir: deps.dataDir, now, log: (message) => log('warn', message) }),
      settings: deps.settings,
      dialogs: deps.dialogs ?? null,
      allowAnyPath: deps.allowAnyPath === true,
    }),
    ...createTemplateHandlers({ profiles, session: () => active.current(), log }),
    ...createPoolHandlers({
      settings: deps.settings,
      ...profiles.access(),
      pools,
      restartFolders: () => active.restartFolders(),
      queueOf: (profile) => active.withApi(profile, (api) => readServerQueue(api, async () => (jobs ? jobs.listInFlight() : []))),
      labelOf: async (promptId) => (await jobs?.get(promptId))?.workflowName ?? null,
      emit,
    }),
    ...createUploadHandlers({
      requireSession: () => active.requireSession(),
      requireLibrary,
      dialogs: deps.dialogs ?? null,
      allowAnyPath: deps.allowAnyPath === true,
      uploadsDir: join(paths.cache, 'uploads'),
    }),

    'preview.ack': async ({ promptId, seq }) => {
      previews.ack(promptId, seq);
      return null;
    },

    'renderer.ready': async () => {
      // A new renderer holds no frames: release what waits, and tell it the connection state.
      previews.reset();
      firstScreen.rendererReady();
      hub.emit('connection.state', active.connection());
      for (const notice of notices) hub.emit('app.notice', notice);
      return { version };
    },
  };

  const answer = createInvoke(handlers, vault.redact.bind(vault), log);
  // Every answer about the active server updates what the indicator knows is wrong with it.
  const invoke: typeof answer = async (name, input) => {
    const result = await answer(name, input);
    active.noteAnswer(String(name), input, result);
    return result;
  };

  return {
    handlers,
    invoke,
    // Not through `invoke`: a note says nothing about the active server (no noteAnswer, which reads the settings).
    notify: (name, input) => {
      if (!isNoteName(name)) {
        log('warn', `"${String(name).slice(0, 100)}" is not a Flowdeck note; ignored.`);
        return;
      }
      void answer(name, input).then((result) => {
        if (!result.ok) log('warn', `The ${name} note was refused: ${result.error.message}`);
      });
    },
    onEvent: (listener) => hub.on(listener),
    previewStats: (promptId) => previews.stats(promptId),
    serveMedia: async (request) =>
      library ? serveLibraryMedia(library, request) : { status: 503, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: null },

    async start() {
      if (started) return;
      mkdirSync(deps.dataDir, { recursive: true });
      const opened = await Store.open(paths.database);
      store = opened;
      // A settings file set aside (read before the core started, or later) is said like a store reset.
      stopSettingsNotices = deps.settings.onSetAside?.((event) => tellUser(settingsSetAsideNotice(event))) ?? null;
      if (opened.reset) tellUser(storeResetNotice(opened.reset));
      jobs = await JobStore.open(opened, { now, heldSends: () => heldUnconfirmedSends(opened) });
      await settleDemoJobs(deps.settings, jobs);
      // Every output of every job is kept in the library (downloads resume after a restart).
      library = await Library.open({
        store,
        root: nextLibraryDir({ dataDir: deps.dataDir, settings: deps.settings }),
        ...(deps.libraryTrash ? { trash: deps.libraryTrash } : {}),
        // Downloads go through the active profile's client or an open pool server's; other
        // servers' items wait until one of those is open.
        source: (server) => active.openApiFor(server),
        log: (message) => log('warn', message),
      });
      await library.start();
      stopLibraryEvents = forwardLibraryChanges(library, (payload) => hub.emit('library.changed', payload));
      // An older library's search terms are listed after the first screen (terms-fill.ts).
      const filling = library;
      void firstScreen
        .shown()
        .then(() => (disposed ? undefined : filling.fillSearchTerms()))
        .catch((error: unknown) => log('warn', `library: listing the search terms failed: ${describeError(error)}`));
      hotFolders = new HotFoldersHost({
        store,
        library: () => library,
        emit,
        log,
        now,
        dialogs: deps.dialogs ?? null,
        desktop: deps.desktop ?? null,
        serverName: (baseUrl) => profiles.serverName(baseUrl),
        handOverToLibrary: (promptIds) => recording.handOver(promptIds),
        pools,
        poolTempDir: join(paths.cache, 'pool-inputs'),
      });
      started = true;
      firstScreen.startClock();
      active.markStarted();
      await active.switchTo(profiles.ensureActive(DEMO_PROFILE_NAME));
    },

    async dispose() {
      if (disposed) return;
      disposed = true;
      firstScreen.release();
      await active.dispose();
      hotFolders = null;
      await profiles.stopDemo();
      stopLibraryEvents?.();
      stopLibraryEvents = null;
      stopSettingsNotices?.();
      stopSettingsNotices = null;
      await library?.dispose();
      library = null;
      await store?.close();
      store = null;
      jobs = null;
    },
  };
}

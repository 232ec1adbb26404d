// The app core: every contract call's handler and the events main sends to the renderer, in
// plain Node. The Electron shell (IPC) and the browser harness (WebSocket) are thin transports
// over it; tests drive it directly. Everything it needs from outside is injected (settings,
// secrets, data folder, the demo service, the clock, file dialogs).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CallHandlers, ConnectionStateView, Envelope, EventPayload, KeyStatus, ProfileView, ProfilesState } from '../../shared/ipc/contract';
import { dataPaths } from '../config/data-dir';
import type { SecretStore } from '../config/secrets';
import { normaliseBaseUrl, type Profile, type SettingsStore } from '../config/settings';
import { serverKindOfProfile } from '../config/profile-server';
import { clientSideError } from '../jobs/error-explanations';
import { JobStore, type JobRecord } from '../jobs/job-store';
import { outputRouteOf } from '../jobs/output-route';
import { Store } from '../jobs/store';
import { storeResetNotice } from '../jobs/store-reset';
import { ServiceError } from '../service/errors';
import type { ServiceApi } from '../service/ports';
import type { ServerKind, ServerProfile } from '../service/types';
import { capabilitiesFor } from '../service/capabilities';
import { AppFailure } from './errors';
import { EventHub, type AppEventListener } from './event-hub';
import { KeyVault } from './keys';
import { nodeDefinitionsView } from './node-definitions';
import { OutputCache } from './output-cache';
import { PreviewGate, type PreviewLaneStats } from './preview-gate';
import { ProfileSession, queueView, type ConnectFactory } from './session';
import { LivePool } from './live-pool';
import { createPoolHandlers } from './pool-handlers';
import { poolSettingsView } from './pool-settings';
import { Library, resolveLibraryDir, type LibraryServer, type RecordContext, type TrashFunction } from '../library';
import type { JobSnapshot } from '../jobs/types';
import { createInvoke } from './envelope';
import { ConnectionProblems, problemOfServiceError, testWithoutKey } from './connection-problem';
import { createJobHandlers } from './job-handlers';
import { createHistoryHandlers } from './history-handlers';
import { createUploadHandlers } from './upload-handlers';
import { createWorkflowHandlers } from './workflow-handlers';
import type { DesktopActions } from './desktop';
import { HotFoldersHost } from './hot-folders-host';
import { createLibraryHandlers } from './library-handlers';
import { forwardLibraryChanges } from './library-events';
import { serveLibraryMedia, type MediaRequest, type MediaResponse } from './library-media-server';
import { HARNESS_MEDIA_BASE } from '../../shared/library-media';
import { describeError } from '../../shared/describe-error';

/** The built-in demo service while it runs. */
export interface DemoHandle {
  readonly url: string;
  stop(): Promise<void>;
}
export type StartDemo = (options: { apiKey: string }) => Promise<DemoHandle>;

/** Native file dialogs (Electron); absent in the harness, where the page gives a path or bytes. */
export interface FileDialogs {
  openWorkflow(): Promise<string | null>;
  openImage(): Promise<string | null>;
  /** A folder (hot folders' input and output). */
  pickFolder(title: string): Promise<string | null>;
}

export type LogLevel = 'info' | 'warn' | 'error';

export interface AppCoreDeps {
  settings: SettingsStore;
  /** The OS keychain (KeytarSecretStore) or an in-memory store (SessionSecretStore). */
  secrets: SecretStore;
  dataDir: string;
  startDemo: StartDemo;
  /** REST client + events socket for a server (defaultConnect in production). */
  connect: ConnectFactory;
  now?: () => number;
  version?: string;
  dialogs?: FileDialogs;
  /**
   * Accept any file path the renderer names (browser harness, tests). Otherwise (Electron) a path
   * is accepted only from the recent list; other files come through a dialog or as bytes.
   */
  allowAnyPath?: boolean;
  /** Receives log lines with every known key already removed. */
  log?: (level: LogLevel, message: string) => void;
  pollIntervalMs?: number;
  /** Opening files, showing them in the file manager, notifications (Electron); absent in the harness. */
  desktop?: DesktopActions;
  /** Base of library media URLs as the renderer must write them (library-media.ts); the harness's path by default. */
  mediaBase?: string;
  /** How deleted library files reach the trash (tests); the OS trash by default. */
  libraryTrash?: TrashFunction;
}

export interface AppCore {
  readonly handlers: CallHandlers;
  /** Validates the call name and input against the contract, runs the handler; never throws. */
  invoke(name: unknown, input: unknown): Promise<Envelope<unknown>>;
  onEvent(listener: AppEventListener): () => void;
  start(): Promise<void>;
  dispose(): Promise<void>;
  /** Preview back-pressure of one job (tests and diagnostics). */
  previewStats(promptId: string): PreviewLaneStats | null;
  /** Answers a library media URL (the transports' protocol handler and HTTP route call it). */
  serveMedia(request: MediaRequest): Promise<MediaResponse>;
}

const DEMO_PROFILE_NAME = 'Demo';

export function createAppCore(deps: AppCoreDeps): AppCore {
  const now = deps.now ?? Date.now;
  const version = deps.version ?? '0.0.0';
  const vault = new KeyVault(deps.secrets);
  const log = (level: LogLevel, message: string): void => deps.log?.(level, vault.redact(message));
  /** Notices from start-up, repeated to each renderer that becomes ready (it may open later). */
  const notices: EventPayload<'app.notice'>[] = [];
  const hub = new EventHub((error) => log('error', `event listener failed: ${describeError(error)}`));
  const previews = new PreviewGate((frame) => hub.emit('job.preview', frame));
  const paths = dataPaths(deps.dataDir);
  const outputs = new OutputCache(join(paths.cache, 'outputs'));
  // The demo service's key: random per run, held in main's memory only.
  const demoKey = `demo-${randomBytes(18).toString('base64url')}`;
  vault.noteSecret(demoKey);

  let store: Store | null = null;
  let jobs: JobStore | null = null;
  let library: Library | null = null;
  let stopLibraryEvents: (() => void) | null = null;
  let hotFolders: HotFoldersHost | null = null;
  let session: ProfileSession | null = null;
  let demo: DemoHandle | null = null;
  let demoStarting: Promise<DemoHandle> | null = null;
  let lastConnection: ConnectionStateView = { profileId: null, state: 'offline', message: 'No server profile is selected.' };
  /** Profile switches run one after another; calls needing the session wait for the current one. */
  let switching: Promise<void> = Promise.resolve();
  let started = false;
  let disposed = false;

  // ---- profiles ------------------------------------------------------------------------------

  const profileView = (p: Profile): ProfileView => ({ id: p.id, name: p.name, kind: p.kind, baseUrl: p.kind === 'demo' ? (demo?.url ?? '') : p.baseUrl });
  const profilesState = (): ProfilesState => {
    const s = deps.settings.read();
    return { profiles: s.profiles.map(profileView), activeProfileId: s.activeProfileId };
  };
  const emitProfiles = (): void => hub.emit('profiles.changed', profilesState());
  const findProfile = (id: string): Profile => {
    const profile = deps.settings.read().profiles.find((p) => p.id === id);
    if (!profile) throw new AppFailure('not_found', `There is no server profile with id "${id}".`);
    return profile;
  };
  /** The profile a call targets: the one named, else the active one. */
  const targetProfile = (profileId: string | undefined): Profile => {
    if (profileId !== undefined) return findProfile(profileId);
    const active = deps.settings.read().activeProfileId;
    if (!active) throw new AppFailure('invalid_input', 'No server profile is selected. Add or select one first.');
    return findProfile(active);
  };

  const ensureDemo = async (): Promise<DemoHandle> => {
    if (demo) return demo;
    demoStarting ??= deps.startDemo({ apiKey: demoKey }).then(
      (handle) => {
        demo = handle;
        log('info', `built-in demo service listening on ${handle.url}`);
        return handle;
      },
      (error: unknown) => {
        demoStarting = null;
        throw error;
      },
    );
    return demoStarting;
  };

  /** The built-in demo profile speaks the cloud flavour. */
  const serverKindOf = (profile: Profile): ServerKind => serverKindOfProfile(profile);
  /** Whether the profile's server needs an API key (asked of its capabilities, not its kind). */
  const needsKey = (profile: Profile): boolean => capabilitiesFor(serverKindOf(profile)).needsApiKey;

  const serverFor = async (profile: Profile): Promise<ServerProfile> => {
    if (profile.kind === 'demo') return { kind: serverKindOf(profile), baseUrl: (await ensureDemo()).url };
    return { kind: serverKindOf(profile), baseUrl: profile.baseUrl };
  };

  const keyFor = async (profile: Profile): Promise<string | null> => (profile.kind === 'demo' ? demoKey : vault.get(profile.id));

  // ---- the active session --------------------------------------------------------------------

  const problems = new ConnectionProblems();
  const emitConnection = (state: ConnectionStateView): void => {
    lastConnection = { ...state, problem: problems.get(state.profileId) };
    hub.emit('connection.state', lastConnection);
  };

  const activate = async (profileId: string | null): Promise<void> => {
    const previous = session;
    session = null;
    // Hot folders stop first: their uploads under way finish on the old connection.
    await hotFolders?.detach();
    await previous?.dispose();
    if (!profileId || disposed || !jobs) {
      emitConnection({ profileId: null, state: 'offline', message: 'No server profile is selected.' });
      return;
    }
    const profile = deps.settings.read().profiles.find((p) => p.id === profileId);
    if (!profile) return;
    // A cloud server without a key cannot run anything: say so rather than only "connected".
    const keyless = needsKey(profile) && !(await keyFor(profile));
    if (keyless) problems.set(profile.id, 'no_key');
    else if (problems.get(profile.id) === 'no_key') problems.set(profile.id, null);
    let server: ServerProfile;
    try {
      server = await serverFor(profile);
    } catch (error) {
      log('error', `could not start the built-in demo service: ${describeError(error)}`);
      emitConnection({ profileId, state: 'offline', message: `The built-in demo service could not start: ${describeError(error)}` });
      return;
    }
    if (disposed) return;
    if (profile.kind === 'demo') emitProfiles(); // its address is known now
    const next = new ProfileSession({
      profileId: profile.id,
      server,
      apiKey: () => keyFor(profile),
      connect: deps.connect,
      jobs,
      previews,
      now,
      ...(deps.pollIntervalMs !== undefined ? { pollIntervalMs: deps.pollIntervalMs } : {}),
      outputs: {
        connection: (state) => {
          if (session === next) emitConnection(state);
        },
        job: (snapshot) => hub.emit('job.update', snapshot),
        jobEnded: (snapshot) => void recordOutputs(snapshot, profile.id, server),
        queue: (queue) => hub.emit('queue.changed', queue),
        warn: (message) => log('warn', message),
      },
    });
    session = next;
    next.start();
    await hotFolders?.attach(next).catch((error: unknown) => log('error', `Could not start the hot folders: ${describeError(error)}`));
    void library?.resumePending({ server: profile.id }).catch((error: unknown) => log('warn', `Could not resume library downloads: ${describeError(error)}`));
  };

  /** Hands a finished job's outputs to the library (when its origin says so), with the workflow from the journal as provenance. */
  const recordOutputs = async (snapshot: JobSnapshot, profileId: string, server: ServerProfile): Promise<void> => {
    if (!library || snapshot.outputs.length === 0) return;
    try {
      const record = await jobs?.get(snapshot.promptId);
      // Routed by the origin on the job's journal record: a hot folder's jobs reach the library
      // through the folder, with their input file as provenance.
      if (outputRouteOf(record ?? null) !== 'record') return;
      await library.record(snapshot, libraryContextOf({ profileId, kind: server.kind, baseUrl: server.baseUrl }, record ?? null));
    } catch (error) {
      log('warn', `Could not record the outputs of job ${snapshot.promptId} in the library: ${describeError(error)}`);
    }
  };

  /** Where a job's outputs came from, for the library: its server, and its workflow, name and creation time when journaled. */
  const libraryContextOf = (server: LibraryServer, record: JobRecord | null): RecordContext => ({
    server,
    ...(record?.workflow ? { workflow: record.workflow } : {}),
    ...(record?.workflowName ? { workflowName: record.workflowName } : {}),
    ...(record ? { createdAt: record.createdAt } : {}),
  });

  /**
   * A removed hot folder's jobs whose outputs it did not take: the library takes them from now on,
   * and records at once those that had already succeeded (no end is coming to route them).
   */
  const handOverToLibrary = async (promptIds: readonly string[]): Promise<void> => {
    const succeeded = (await jobs?.handOverToLibrary(promptIds)) ?? [];
    for (const record of succeeded) {
      await library?.record(record, libraryContextOf({ profileId: record.profileId, kind: record.serverKind, baseUrl: record.baseUrl }, record));
    }
  };

  /** Restarts the hot folders on the active session, so the pool is opened afresh from the settings. */
  const restartFolders = (): Promise<void> => {
    switching = switching.then(() => hotFolders?.restart()).catch((error: unknown) => log('error', `restarting the hot folders failed: ${describeError(error)}`));
    return switching;
  };

  const inPool = (profileId: string): boolean => deps.settings.read().pool.some((e) => e.profileId === profileId);

  /** The profile name of the server at `baseUrl` (a hot folder file's server). */
  const serverName = (baseUrl: string): string | null => {
    const wanted = safeBaseUrl(baseUrl);
    const profile = deps.settings.read().profiles.find((p) => (p.kind === 'demo' ? demo !== null && safeBaseUrl(demo.url) === wanted : safeBaseUrl(p.baseUrl) === wanted));
    return profile?.name ?? null;
  };

  const switchTo = (profileId: string | null): Promise<void> => {
    switching = switching.then(() => activate(profileId)).catch((error: unknown) => log('error', `switching profiles failed: ${describeError(error)}`));
    return switching;
  };

  const requireSession = async (): Promise<ProfileSession> => {
    if (!started) throw new AppFailure('internal', 'The app is still starting; try again in a moment.');
    await switching;
    if (!session) {
      const active = deps.settings.read().activeProfileId;
      throw new AppFailure(active ? 'network' : 'invalid_input', active ? (lastConnection.message ?? 'The server is not connected.') : 'No server profile is selected. Add or select one first.');
    }
    return session;
  };

  /**
   * A REST client for a profile: the session's when it is the active one, else a short-lived one
   * (its socket is never started).
   */
  const withApi = async <T>(profile: Profile, use: (api: ServiceApi, active: ProfileSession | null) => Promise<T>): Promise<T> => {
    await switching;
    if (session && session.profileId === profile.id) return use(session.api, session);
    const server = await serverFor(profile);
    const { api, events } = deps.connect(server, () => keyFor(profile));
    try {
      return await use(api, null);
    } finally {
      await events.dispose();
    }
  };

  /** The open connection to `server`: the active session's, else the open pool's (no new connection). */
  const openApiFor = (server: { kind: ServerKind; baseUrl: string }): ServiceApi | null => {
    if (session && session.server.baseUrl === server.baseUrl && session.server.kind === server.kind) return session.api;
    const pooled = hotFolders?.currentPool()?.sessionFor(server.baseUrl) ?? null;
    return pooled && pooled.server.kind === server.kind ? pooled.api : null;
  };

  const withServerApi = async <T>(server: ServerProfile, profileId: string | null, use: (api: ServiceApi) => Promise<T>): Promise<T> => {
    await switching;
    const open = openApiFor(server);
    if (open) return use(open);
    const profile = profileId ? deps.settings.read().profiles.find((p) => p.id === profileId) : undefined;
    const { api, events } = deps.connect(server, () => (profile ? keyFor(profile) : null));
    try {
      return await use(api);
    } finally {
      await events.dispose();
    }
  };

  const requireLibrary = (): Library => {
    if (!library) throw new AppFailure('internal', 'The app is still starting; try again in a moment.');
    return library;
  };

  const requireJobs = (): JobStore => {
    if (!jobs) throw new AppFailure('internal', 'The app is still starting; try again in a moment.');
    return jobs;
  };

  // ---- jobs ------------------------------------------------------------------------------------

  /** Demo jobs die with the demo service: at start, any left in flight are settled as lost. */
  const settleDemoJobs = async (store: JobStore): Promise<void> => {
    const demoIds = new Set(deps.settings.read().profiles.filter((p) => p.kind === 'demo').map((p) => p.id));
    for (const record of await store.listInFlight()) {
      if (!record.profileId || !demoIds.has(record.profileId)) continue;
      await store.updatePhase(record.promptId, 'failed', 'lost');
      await store.setError(
        record.promptId,
        clientSideError('The built-in demo service was restarted, and its jobs ended with it. Run the workflow again.', 'The demo service no longer knows this job.'),
      );
    }
  };

  // ---- handlers --------------------------------------------------------------------------------

  const libraryHandlers = createLibraryHandlers({
    library: requireLibrary,
    desktop: deps.desktop ?? null,
    mediaBase: deps.mediaBase ?? HARNESS_MEDIA_BASE,
    profileName: (id) => deps.settings.read().profiles.find((p) => p.id === id)?.name ?? null,
    folder: { dataDir: deps.dataDir, settings: deps.settings },
  });
  /** Hot folders' handlers, once the store is open (start()). */
  const hotFolderHandler =
    <N extends keyof ReturnType<HotFoldersHost['handlers']>>(name: N) =>
    (input: Parameters<ReturnType<HotFoldersHost['handlers']>[N]>[0]): ReturnType<ReturnType<HotFoldersHost['handlers']>[N]> => {
      if (!hotFolders) throw new AppFailure('internal', 'The app is still starting; try again in a moment.');
      const handler = hotFolders.handlers()[name] as (input: unknown) => ReturnType<ReturnType<HotFoldersHost['handlers']>[N]>;
      return handler(input);
    };

  const handlers: CallHandlers = {
    ...libraryHandlers,
    'hotFolders.list': hotFolderHandler('hotFolders.list'),
    'hotFolders.save': hotFolderHandler('hotFolders.save'),
    'hotFolders.remove': hotFolderHandler('hotFolders.remove'),
    'hotFolders.pause': hotFolderHandler('hotFolders.pause'),
    'hotFolders.resume': hotFolderHandler('hotFolders.resume'),
    'hotFolders.retryFailed': hotFolderHandler('hotFolders.retryFailed'),
    'hotFolders.files': hotFolderHandler('hotFolders.files'),
    'hotFolders.openOutput': hotFolderHandler('hotFolders.openOutput'),
    'dialog.pickFolder': hotFolderHandler('dialog.pickFolder'),
    'profiles.list': async () => profilesState(),

    'profiles.save': async (input) => {
      let baseUrl = '';
      if (input.kind !== 'demo') {
        if (!input.baseUrl) throw new AppFailure('invalid_input', 'A server URL is needed for this profile (for example http://127.0.0.1:8188).');
        try {
          baseUrl = normaliseBaseUrl(input.baseUrl);
        } catch (error) {
          throw new AppFailure('invalid_input', describeError(error));
        }
      }
      const current = deps.settings.read();
      const existing = input.id ? current.profiles.find((p) => p.id === input.id) : undefined;
      if (input.id && !existing) throw new AppFailure('not_found', `There is no server profile with id "${input.id}".`);
      const profile: Profile = { id: existing?.id ?? randomUUID(), name: input.name, kind: input.kind, baseUrl };
      const wasActive = current.activeProfileId === profile.id;
      const select = input.select === true || !current.activeProfileId;
      deps.settings.update((s) => ({
        ...s,
        profiles: existing ? s.profiles.map((p) => (p.id === profile.id ? profile : p)) : [...s.profiles, profile],
        activeProfileId: select ? profile.id : s.activeProfileId,
      }));
      const serverChanged = existing !== undefined && (existing.kind !== profile.kind || existing.baseUrl !== profile.baseUrl);
      if ((select && !wasActive) || (wasActive && serverChanged)) await switchTo(profile.id);
      else if (serverChanged && current.pool.some((e) => e.profileId === profile.id)) await restartFolders();
      emitProfiles();
      return profileView(profile);
    },

    'profiles.remove': async ({ id }) => {
      const profile = findProfile(id);
      const wasActive = deps.settings.read().activeProfileId === id;
      // The active server's successor must be able to run workflows: a cloud server without a
      // key never becomes active silently; with none usable, no server is active.
      let successor: string | null = null;
      if (wasActive) {
        for (const p of deps.settings.read().profiles) {
          if (p.id !== id && (!needsKey(p) || (await keyFor(p)))) {
            successor = p.id;
            break;
          }
        }
      }
      const inPool = deps.settings.read().pool.some((e) => e.profileId === id);
      const next = deps.settings.update((s) => {
        const profiles = s.profiles.filter((p) => p.id !== id);
        // A removed server leaves the pool too.
        return { ...s, profiles, pool: s.pool.filter((e) => e.profileId !== id), activeProfileId: s.activeProfileId === id ? successor : s.activeProfileId };
      });
      if (profile.kind !== 'demo') await vault.remove(id);
      problems.set(id, null);
      if (wasActive) {
        if (!next.activeProfileId) hotFolders?.setOfflineReason(`The server "${profile.name}" was removed: choose a server in Servers and the folder runs again.`);
        await switchTo(next.activeProfileId);
      } else if (inPool) await restartFolders();
      if (inPool) hub.emit('pool.changed', poolSettingsView(next.pool, next.profiles));
      emitProfiles();
      return profilesState();
    },

    'profiles.select': async ({ id }) => {
      findProfile(id);
      deps.settings.update((s) => ({ ...s, activeProfileId: id }));
      if (session?.profileId !== id) await switchTo(id);
      emitProfiles();
      return profilesState();
    },

    'key.status': async (input) => {
      const profile = targetProfile(input?.profileId);
      if (profile.kind === 'demo') return { isSet: true, last4: demoKey.slice(-4), storage: 'session' } satisfies KeyStatus;
      return vault.status(profile.id);
    },

    'key.save': async ({ profileId, key, sessionOnly }) => {
      const profile = targetProfile(profileId);
      if (profile.kind === 'demo') throw new AppFailure('invalid_input', 'The demo profile uses the built-in service\'s own key; it needs none from you.');
      const status = await vault.save(profile.id, key, sessionOnly === true);
      // A new key: what the old one met (rejected, no credits) is not known of this one.
      problems.set(profile.id, null);
      // The events socket authenticates when it connects: reconnect with the new key.
      if (session?.profileId === profile.id) await switchTo(profile.id);
      else if (inPool(profile.id)) await restartFolders();
      return status;
    },

    'key.remove': async (input) => {
      const profile = targetProfile(input?.profileId);
      if (profile.kind === 'demo') throw new AppFailure('invalid_input', 'The demo profile\'s key belongs to the built-in service and cannot be removed.');
      const status = await vault.remove(profile.id);
      problems.set(profile.id, needsKey(profile) ? 'no_key' : null);
      if (session?.profileId === profile.id) await switchTo(profile.id);
      // A pool server without its key leaves the running pool (shown out of rotation with the reason).
      else if (inPool(profile.id)) await restartFolders();
      return status;
    },

    'connection.test': async (input) => {
      const profile = targetProfile(input?.profileId);
      const keyNeeded = needsKey(profile);
      const key = await keyFor(profile);
      // Without a key, what a keyless request can show: the server answers, and is a workflow server.
      if (keyNeeded && !key) return withApi(profile, (api) => testWithoutKey(api));
      return withApi(profile, async (api, active) => {
        const subscriptionActive = active?.subscriptionActive ?? null;
        try {
          // Fetched afresh; the active session keeps them, so the form shows what the test saw.
          const definitions = active ? await active.nodeDefinitions(true) : await api.getNodeDefinitions();
          return {
            reachable: true,
            keyAccepted: keyNeeded ? true : null,
            subscriptionActive,
            nodeCount: definitions.size,
            problem: null,
            skipped: subscriptionActive === null && keyNeeded ? ['the subscription and credits check: only running a workflow shows them'] : [],
            message: `Connected to ${api.profile.baseUrl}: ${definitions.size} node types available${keyNeeded ? ', key accepted' : ''}.`,
          };
        } catch (error) {
          if (!(error instanceof ServiceError)) throw error;
          switch (error.kind) {
            case 'unauthorized':
              return { reachable: true, keyAccepted: false, subscriptionActive, nodeCount: null, problem: 'key_rejected', message: error.message };
            case 'subscription_inactive':
              return { reachable: true, keyAccepted: true, subscriptionActive: false, nodeCount: null, problem: 'subscription_inactive', message: error.message };
            case 'network':
              return { reachable: false, keyAccepted: null, subscriptionActive, nodeCount: null, problem: 'unreachable', message: error.message };
            default:
              return { reachable: true, keyAccepted: null, subscriptionActive, nodeCount: null, problem: problemOfServiceError(error), message: error.message };
          }
        }
      });
    },

    'nodes.definitions': async (input) => {
      const profile = targetProfile(input?.profileId);
      const definitions = await withApi(profile, (api, active) => (active ? active.nodeDefinitions(input?.refresh === true) : api.getNodeDefinitions()));
      return { profileId: profile.id, classes: nodeDefinitionsView(definitions) };
    },

    ...createWorkflowHandlers({ settings: deps.settings, dialogs: deps.dialogs ?? null, allowAnyPath: deps.allowAnyPath === true, session: () => session, requireLibrary }),
    ...createJobHandlers({
      now,
      log,
      session: () => session,
      requireSession,
      requireJobs,
      withServerApi,
      outputs,
      usePool: async () => (hotFolders ? hotFolders.usePool() : null),
      currentPool: () => hotFolders?.currentPool() ?? null,
      poolIsSet: () => deps.settings.read().pool.length > 0,
      poolTempDir: join(paths.cache, 'pool-inputs'),
      notify: (message) => hub.emit('app.notice', { level: 'warning', message }),
    }),
    ...createHistoryHandlers({ requireJobs, requireSession }),
    ...createPoolHandlers({
      settings: deps.settings,
      needsKey,
      hasKey: async (profile) => (await keyFor(profile)) !== null,
      hotFolders: () => hotFolders,
      restartFolders,
      queueOf: (profile) => withApi(profile, async (api) => queueView(await api.getQueue())),
      labelOf: async (promptId) => (await jobs?.get(promptId))?.workflowName ?? null,
      emit: (name, payload) => hub.emit(name, payload),
    }),
    ...createUploadHandlers({
      requireSession,
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
      hub.emit('connection.state', lastConnection);
      for (const notice of notices) hub.emit('app.notice', notice);
      return { version };
    },
  };

  const answer = createInvoke(handlers, vault.redact.bind(vault), log);
  // Every answer about the active server updates what the indicator knows is wrong with it.
  const invoke: typeof answer = async (name, input) => {
    const result = await answer(name, input);
    const target = typeof input === 'object' && input !== null && typeof (input as { profileId?: unknown }).profileId === 'string' ? (input as { profileId: string }).profileId : deps.settings.read().activeProfileId;
    if (problems.note(String(name), target, result) && target === lastConnection.profileId) emitConnection(lastConnection);
    return result;
  };

  return {
    handlers,
    invoke,
    onEvent: (listener) => hub.on(listener),
    previewStats: (promptId) => previews.stats(promptId),
    serveMedia: async (request) =>
      library ? serveLibraryMedia(library, request) : { status: 503, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: null },

    async start() {
      if (started) return;
      mkdirSync(deps.dataDir, { recursive: true });
      store = await Store.open(paths.database);
      if (store.reset) {
        const notice = { level: 'warning' as const, message: storeResetNotice(store.reset) };
        log('warn', notice.message);
        notices.push(notice);
        hub.emit('app.notice', notice);
      }
      jobs = await JobStore.open(store, { now });
      await settleDemoJobs(jobs);
      // Every output of every job is kept in the library (downloads resume after a restart).
      library = await Library.open({
        store,
        root: resolveLibraryDir(deps.dataDir, process.env, deps.settings.read().libraryDir),
        ...(deps.libraryTrash ? { trash: deps.libraryTrash } : {}),
        // Downloads go through the active profile's client or an open pool server's; other
        // servers' items wait until one of those is open.
        source: (server) => openApiFor(server),
        log: (message) => log('warn', message),
      });
      await library.start();
      stopLibraryEvents = forwardLibraryChanges(library, (payload) => hub.emit('library.changed', payload));
      hotFolders = new HotFoldersHost({
        store,
        library: () => library,
        emit: (name, payload) => hub.emit(name, payload),
        log,
        now,
        dialogs: deps.dialogs ?? null,
        desktop: deps.desktop ?? null,
        serverName,
        handOverToLibrary,
        openPool: (active) => {
          const openJobs = jobs;
          if (!openJobs) return Promise.resolve(null);
          return LivePool.open(
            {
              entries: deps.settings.read().pool,
              profiles: deps.settings.read().profiles,
              needsKey,
              hasKey: async (profile) => (await keyFor(profile)) !== null,
              serverFor,
              keyFor,
              connect: deps.connect,
              jobs: openJobs,
              previews,
              now,
              ...(deps.pollIntervalMs !== undefined ? { pollIntervalMs: deps.pollIntervalMs } : {}),
              warn: (message) => log('warn', message),
              job: (snapshot) => hub.emit('job.update', snapshot),
              jobEnded: (snapshot, profileId, server) => void recordOutputs(snapshot, profileId, server),
            },
            active,
          );
        },
      });
      let settings = deps.settings.read();
      if (settings.profiles.length === 0) {
        // First start: a demo profile, so the app does something real before any account exists.
        const profile: Profile = { id: randomUUID(), name: DEMO_PROFILE_NAME, kind: 'demo', baseUrl: '' };
        settings = deps.settings.update((s) => ({ ...s, profiles: [profile], activeProfileId: profile.id }));
      } else if (!settings.profiles.some((p) => p.id === settings.activeProfileId)) {
        settings = deps.settings.update((s) => ({ ...s, activeProfileId: s.profiles[0]?.id ?? null }));
      }
      started = true;
      await switchTo(settings.activeProfileId);
    },

    async dispose() {
      if (disposed) return;
      disposed = true;
      await switching;
      await hotFolders?.dispose();
      hotFolders = null;
      await session?.dispose();
      session = null;
      const running = demo ?? (demoStarting ? await demoStarting.catch(() => null) : null);
      await running?.stop();
      demo = null;
      stopLibraryEvents?.();
      stopLibraryEvents = null;
      await library?.dispose();
      library = null;
      await store?.close();
      store = null;
      jobs = null;
    },
  };
}

/** A base URL normalised for comparison; as given when it cannot be parsed. */
function safeBaseUrl(url: string): string {
  try {
    return normaliseBaseUrl(url);
  } catch {
    return url;
  }
}


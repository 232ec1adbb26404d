// The app core: every contract call's handler and the events main sends to the renderer, in
// plain Node. The Electron shell (IPC) and the browser harness (WebSocket) are thin transports
// over it; tests drive it directly. Everything it needs from outside is injected (settings,
// secrets, data folder, the demo service, the clock, file dialogs).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { calls, type CallHandlers, type ConnectionStateView, type Envelope, type JobSnapshotView, type KeyStatus, type ProfileView, type ProfilesState, type UploadView } from '../../shared/ipc/contract';
import { isCallName } from '../../shared/ipc/names';
import { parseJsonExact } from '../../shared/json';
import { dataPaths } from '../config/data-dir';
import type { SecretStore } from '../config/secrets';
import { normaliseBaseUrl, type Profile, type SettingsStore } from '../config/settings';
import { clientSideError } from '../jobs/error-explanations';
import { JobStore, type JobRecord } from '../jobs/job-store';
import { Store } from '../jobs/store';
import { isTerminalPhase } from '../jobs/types';
import { ServiceError } from '../service/errors';
import type { ServiceApi } from '../service/ports';
import type { ServerProfile, UploadResult } from '../service/types';
import { interpretWorkflow } from '../workflow/parse';
import { AppFailure, toIpcError } from './errors';
import { EventHub, type AppEventListener } from './event-hub';
import { KeyVault } from './keys';
import { nodeDefinitionsView } from './node-definitions';
import { OutputCache } from './output-cache';
import { PreviewGate, type PreviewLaneStats } from './preview-gate';
import { ProfileSession, errorView, jobView, type ConnectFactory } from './session';
import { Library, resolveLibraryDir, type TrashFunction } from '../library';
import type { JobSnapshot } from '../jobs/types';
import { thumbnailDataUrl } from './thumbnail';
import type { DesktopActions } from './desktop';
import { HotFoldersHost } from './hot-folders-host';
import { createLibraryHandlers } from './library-handlers';
import { forwardLibraryChanges } from './library-events';
import { serveLibraryMedia, type MediaRequest, type MediaResponse } from './library-media-server';
import { HARNESS_MEDIA_BASE } from '../../shared/library-media';
import { isRecentWorkflow, parseWorkflowView, readWorkflowFile, recentWorkflows, rememberWorkflow } from './workflow-files';

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
/** How long workflow.parse waits for node definitions to list unknown classes. */
const DEFINITIONS_WAIT_MS = 3000;

export function createAppCore(deps: AppCoreDeps): AppCore {
  const now = deps.now ?? Date.now;
  const version = deps.version ?? '0.0.0';
  const vault = new KeyVault(deps.secrets);
  const log = (level: LogLevel, message: string): void => deps.log?.(level, vault.redact(message));
  const hub = new EventHub((error) => log('error', `event listener failed: ${describe(error)}`));
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

  const serverFor = async (profile: Profile): Promise<ServerProfile> => {
    if (profile.kind === 'demo') return { kind: 'cloud', baseUrl: (await ensureDemo()).url };
    return { kind: profile.kind, baseUrl: profile.baseUrl };
  };

  const keyFor = async (profile: Profile): Promise<string | null> => (profile.kind === 'demo' ? demoKey : vault.get(profile.id));

  // ---- the active session --------------------------------------------------------------------

  const emitConnection = (state: ConnectionStateView): void => {
    lastConnection = state;
    hub.emit('connection.state', state);
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
    let server: ServerProfile;
    try {
      server = await serverFor(profile);
    } catch (error) {
      log('error', `could not start the built-in demo service: ${describe(error)}`);
      emitConnection({ profileId, state: 'offline', message: `The built-in demo service could not start: ${describe(error)}` });
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
        // A hot folder's jobs reach the library through the folder, with their input as provenance.
        jobEnded: (snapshot) => {
          if (!hotFolders?.owns(snapshot.promptId)) void recordOutputs(snapshot, profile.id, server);
        },
        queue: (queue) => hub.emit('queue.changed', queue),
        warn: (message) => log('warn', message),
      },
    });
    session = next;
    next.start();
    await hotFolders?.attach(next).catch((error: unknown) => log('error', `Could not start the hot folders: ${describe(error)}`));
    void library?.resumePending({ server: profile.id }).catch((error: unknown) => log('warn', `Could not resume library downloads: ${describe(error)}`));
  };

  /** Hands a finished job's outputs to the library, with the workflow from the journal as provenance. */
  const recordOutputs = async (snapshot: JobSnapshot, profileId: string, server: ServerProfile): Promise<void> => {
    if (!library || snapshot.outputs.length === 0) return;
    try {
      const record = await jobs?.get(snapshot.promptId);
      await library.record(snapshot, {
        server: { profileId, kind: server.kind, baseUrl: server.baseUrl },
        ...(record?.workflow ? { workflow: record.workflow } : {}),
        ...(record?.workflowName ? { workflowName: record.workflowName } : {}),
        ...(record ? { createdAt: record.createdAt } : {}),
      });
    } catch (error) {
      log('warn', `Could not record the outputs of job ${snapshot.promptId} in the library: ${describe(error)}`);
    }
  };

  const switchTo = (profileId: string | null): Promise<void> => {
    switching = switching.then(() => activate(profileId)).catch((error: unknown) => log('error', `switching profiles failed: ${describe(error)}`));
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

  const withServerApi = async <T>(server: ServerProfile, profileId: string | null, use: (api: ServiceApi) => Promise<T>): Promise<T> => {
    await switching;
    if (session && session.server.baseUrl === server.baseUrl && session.server.kind === server.kind) return use(session.api);
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

  const recordView = (record: JobRecord): JobSnapshotView => ({
    promptId: record.promptId,
    profileId: record.profileId,
    label: record.workflowName ?? 'workflow',
    phase: record.phase === 'submitting' ? 'pending' : record.phase,
    status: record.rawStatus ?? record.phase,
    submittedAt: record.createdAt,
    updatedAt: record.updatedAt,
    finishedAt: record.endedAt,
    currentNode: record.progress?.currentNode ?? null,
    progress: null,
    overall: record.progress?.nodesTotal ? Math.min(1, record.progress.nodesDone / record.progress.nodesTotal) : null,
    nodesDone: record.progress?.nodesDone ?? 0,
    nodesTotal: record.progress?.nodesTotal ?? null,
    progressText: null,
    outputs: record.outputs.map((o) => ({ filename: o.filename, subfolder: o.subfolder, type: o.type, node: o.node, key: o.key })),
    error: record.error ? errorView(record.error) : null,
  });

  /** The freshest view of a job: the live tracker's when it follows it, else the journal's. */
  const findJob = async (promptId: string): Promise<{ view: JobSnapshotView; record: JobRecord | null }> => {
    const record = await requireJobs().get(promptId);
    const live = session?.tracker.get(promptId);
    if (live) return { view: jobView(live, session?.profileId ?? null, now()), record };
    if (record) return { view: recordView(record), record };
    throw new AppFailure('not_found', `There is no job ${promptId}.`);
  };

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

  // ---- uploads ---------------------------------------------------------------------------------

  const uploadView = (result: UploadResult, server: ServerProfile, bytes: Uint8Array | null): UploadView => ({
    name: result.name,
    subfolder: result.subfolder,
    type: result.type,
    // Local servers keep real subfolders, and a workflow input names the file with it.
    inputValue: server.kind === 'local' && result.subfolder ? `${result.subfolder}/${result.name}` : result.name,
    thumbnailDataUrl: bytes ? thumbnailDataUrl(bytes) : null,
  });

  /** Writes page-supplied bytes to a private temporary file, runs `use`, removes it. */
  const withTempFile = async <T>(name: string, bytes: Uint8Array, use: (path: string) => Promise<T>): Promise<T> => {
    const base = join(paths.cache, 'uploads');
    mkdirSync(base, { recursive: true });
    const dir = await mkdtemp(join(base, 'u-'));
    try {
      const path = join(dir, basename(name));
      await writeFile(path, bytes);
      return await use(path);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  const readUploadFile = async (path: string): Promise<Uint8Array> => {
    const full = resolve(path);
    try {
      const info = await stat(full);
      if (!info.isFile()) throw new AppFailure('invalid_input', `${full} is not a file.`);
      if (info.size > 100 * 1024 * 1024) throw new AppFailure('invalid_input', `${full} is larger than 100 MB.`);
    } catch (error) {
      if (error instanceof AppFailure) throw error;
      throw new AppFailure('not_found', `The file ${full} does not exist or cannot be read.`);
    }
    return new Uint8Array(await readFile(full));
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
          throw new AppFailure('invalid_input', describe(error));
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
      emitProfiles();
      return profileView(profile);
    },

    'profiles.remove': async ({ id }) => {
      const profile = findProfile(id);
      const wasActive = deps.settings.read().activeProfileId === id;
      const next = deps.settings.update((s) => {
        const profiles = s.profiles.filter((p) => p.id !== id);
        return { ...s, profiles, activeProfileId: s.activeProfileId === id ? (profiles[0]?.id ?? null) : s.activeProfileId };
      });
      if (profile.kind !== 'demo') await vault.remove(id);
      if (wasActive) await switchTo(next.activeProfileId);
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
      // The events socket authenticates when it connects: reconnect with the new key.
      if (session?.profileId === profile.id) await switchTo(profile.id);
      return status;
    },

    'key.remove': async (input) => {
      const profile = targetProfile(input?.profileId);
      if (profile.kind === 'demo') throw new AppFailure('invalid_input', 'The demo profile\'s key belongs to the built-in service and cannot be removed.');
      const status = await vault.remove(profile.id);
      if (session?.profileId === profile.id) await switchTo(profile.id);
      return status;
    },

    'connection.test': async (input) => {
      const profile = targetProfile(input?.profileId);
      const needsKey = profile.kind !== 'local';
      const key = await keyFor(profile);
      if (needsKey && !key) {
        return { reachable: false, keyAccepted: false, subscriptionActive: null, nodeCount: null, message: 'No API key is set for this profile. Paste your key first.' };
      }
      return withApi(profile, async (api, active) => {
        const subscriptionActive = active?.subscriptionActive ?? null;
        try {
          const definitions = await api.getNodeDefinitions();
          return {
            reachable: true,
            keyAccepted: needsKey ? true : null,
            subscriptionActive,
            nodeCount: definitions.size,
            message: `Connected to ${api.profile.baseUrl}: ${definitions.size} node types available${needsKey ? ', key accepted' : ''}.`,
          };
        } catch (error) {
          if (!(error instanceof ServiceError)) throw error;
          switch (error.kind) {
            case 'unauthorized':
              return { reachable: true, keyAccepted: false, subscriptionActive, nodeCount: null, message: error.message };
            case 'subscription_inactive':
              return { reachable: true, keyAccepted: true, subscriptionActive: false, nodeCount: null, message: error.message };
            case 'network':
              return { reachable: false, keyAccepted: null, subscriptionActive, nodeCount: null, message: error.message };
            default:
              return { reachable: true, keyAccepted: null, subscriptionActive, nodeCount: null, message: error.message };
          }
        }
      });
    },

    'nodes.definitions': async (input) => {
      const profile = targetProfile(input?.profileId);
      const definitions = await withApi(profile, (api, active) => (active ? active.nodeDefinitions(input?.refresh === true) : api.getNodeDefinitions()));
      return { profileId: profile.id, classes: nodeDefinitionsView(definitions) };
    },

    'workflow.open': async (input) => {
      let file: { path: string | null; name: string; text: string };
      if (input === undefined) {
        const picked = deps.dialogs ? await deps.dialogs.openWorkflow() : null;
        if (!deps.dialogs) throw new AppFailure('invalid_input', 'No file dialog here: give the workflow as a path or as its text.');
        if (!picked) return { opened: false, name: null, path: null, parse: null };
        file = await readWorkflowFile(picked);
      } else if ('path' in input) {
        if (!deps.allowAnyPath && !isRecentWorkflow(deps.settings, input.path)) {
          throw new AppFailure('invalid_input', 'Only workflows from the recent list can be opened by path; use the file dialog or drop the file.');
        }
        file = await readWorkflowFile(input.path);
      } else {
        file = { path: null, name: input.name, text: input.text };
      }
      if (file.path) rememberWorkflow(deps.settings, file.path);
      const known = session?.cachedDefinitions() ?? null;
      return { opened: true, name: file.name, path: file.path, parse: parseWorkflowView(file.text, known) };
    },

    'workflow.parse': async ({ text }) => {
      let known = session?.cachedDefinitions() ?? null;
      if (!known && session) {
        // Listing unknown classes needs the server's definitions: wait for them briefly.
        const loading = session.nodeDefinitions().catch(() => null);
        known = await Promise.race([loading, new Promise<null>((r) => setTimeout(() => r(null), DEFINITIONS_WAIT_MS).unref())]);
      }
      return parseWorkflowView(text, known);
    },

    'workflow.recent': async () => ({ items: recentWorkflows(deps.settings) }),

    'run.submit': async ({ workflowJson, repeat, label }) => {
      let value: unknown;
      try {
        value = parseJsonExact(workflowJson);
      } catch (error) {
        throw new AppFailure('invalid_workflow', `The workflow is not valid JSON: ${describe(error)}`, { errorType: 'invalid_json', nodeErrors: [] });
      }
      const parsed = interpretWorkflow(value);
      if (!parsed.ok) throw new AppFailure('invalid_workflow', parsed.message, { errorType: parsed.reason, nodeErrors: [] });
      const active = await requireSession();
      const store = requireJobs();
      const workflow = parsed.workflow;
      const server = active.server;
      const promptIds: string[] = [];
      for (let i = 0; i < (repeat ?? 1); i += 1) {
        // Locally the client picks the prompt_id and journals it first, so a crash between
        // sending and reading the answer can be reconciled; the cloud assigns its own.
        const chosen = server.kind === 'local' ? randomUUID() : undefined;
        const base = { profileId: active.profileId, serverKind: server.kind, baseUrl: server.baseUrl, clientId: active.events.clientId, workflow, workflowName: label ?? null };
        if (chosen) await store.recordSubmitting({ ...base, promptId: chosen });
        let result;
        try {
          result = await active.api.submit(workflow, { clientId: active.events.clientId, ...(chosen ? { promptId: chosen } : {}) });
        } catch (error) {
          if (chosen) await store.remove(chosen);
          if (error instanceof ServiceError && error.kind === 'subscription_inactive') active.subscriptionActive = false;
          // Jobs already accepted go on; report them rather than the failure of a later repeat.
          if (promptIds.length > 0) {
            log('warn', `run ${i + 1} of ${repeat ?? 1} was not accepted: ${describe(error)}`);
            break;
          }
          throw error;
        }
        active.subscriptionActive = true;
        await store.recordSubmitted({ ...base, promptId: result.promptId, number: result.number });
        active.tracker.track(result.promptId, { workflow, workflowName: label ?? null });
        promptIds.push(result.promptId);
      }
      active.refreshQueueSoon();
      return { promptIds };
    },

    'jobs.list': async () => {
      const records = await requireJobs().list({ limit: 500 });
      const byId = new Map<string, JobSnapshotView>(records.map((r) => [r.promptId, recordView(r)]));
      if (session) {
        for (const live of session.tracker.list()) byId.set(live.promptId, jobView(live, session.profileId, now()));
      }
      return { jobs: [...byId.values()].sort((a, b) => b.submittedAt - a.submittedAt) };
    },

    'jobs.cancel': async ({ promptId }) => {
      const { view, record } = await findJob(promptId);
      if (isTerminalPhase(view.phase)) return { cancelled: false };
      const server: ServerProfile | null = record ? { kind: record.serverKind, baseUrl: record.baseUrl } : (session?.server ?? null);
      if (!server) throw new AppFailure('not_found', `Job ${promptId} belongs to no known server.`);
      await withServerApi(server, view.profileId, async (api) => {
        // Cloud: deleting from the queue cancels pending and running jobs alike (its interrupt
        // would stop all of the user's running jobs). Local: delete removes a pending job; a
        // running one is interrupted by its id, which stops only that job.
        await api.cancel([promptId]);
        if (server.kind === 'local' && view.phase === 'running') await api.interrupt(promptId);
      });
      session?.tracker.noteCancelRequested(promptId);
      session?.refreshQueueSoon();
      return { cancelled: true };
    },

    'queue.get': async () => (await requireSession()).queue(),

    'queue.cancel': async ({ promptIds }) => {
      const active = await requireSession();
      await active.api.cancel(promptIds);
      for (const promptId of promptIds) active.tracker.noteCancelRequested(promptId);
      return active.queue();
    },

    'queue.interrupt': async (input) => {
      const active = await requireSession();
      await active.api.interrupt(input?.promptId);
      return active.queue();
    },

    'queue.clearPending': async () => {
      const active = await requireSession();
      await active.api.clearPending();
      return active.queue();
    },

    'upload.image': async (input) => {
      const active = await requireSession();
      if (input === undefined) {
        if (!deps.dialogs) throw new AppFailure('invalid_input', 'No file dialog here: give the image as a path or as bytes.');
        const picked = await deps.dialogs.openImage();
        if (!picked) return null;
        const bytes = await readUploadFile(picked);
        return uploadView(await active.api.uploadImage(picked, { type: 'input' }), active.server, bytes);
      }
      if ('libraryId' in input) {
        const item = await requireLibrary().get(input.libraryId);
        if (!item) throw new AppFailure('not_found', `There is no library item ${input.libraryId}.`);
        if (item.status !== 'done' || !item.path) throw new AppFailure('invalid_input', `${item.file.filename} is not in the library yet (${item.status}).`);
        if (item.mediaKind !== 'image') throw new AppFailure('invalid_input', `${item.file.filename} is not an image, so it cannot be an input image.`);
        const bytes = await readUploadFile(item.path);
        return uploadView(await active.api.uploadImage(item.path, { type: 'input', filename: item.file.filename }), active.server, bytes);
      }
      if ('path' in input) {
        if (!deps.allowAnyPath) throw new AppFailure('invalid_input', 'Images are chosen with the file dialog or dropped onto the window, not named by path.');
        const bytes = await readUploadFile(input.path);
        return uploadView(await active.api.uploadImage(resolve(input.path), { type: 'input' }), active.server, bytes);
      }
      const result = await withTempFile(input.name, input.bytes, (path) => active.api.uploadImage(path, { type: 'input', filename: input.name }));
      return uploadView(result, active.server, input.bytes);
    },

    'upload.mask': async ({ original, maskPng, filename }) => {
      const active = await requireSession();
      const name = filename ?? 'mask.png';
      const result = await withTempFile(name, maskPng, (path) =>
        active.api.uploadMask(path, { originalRef: { filename: original.name, subfolder: original.subfolder, type: original.type }, filename: name }),
      );
      return uploadView(result, active.server, maskPng);
    },

    'output.fetch': async ({ promptId, file }) => {
      const { view, record } = await findJob(promptId);
      // Only files the job actually produced: the renderer cannot make main fetch anything else.
      const owned = view.outputs.some((o) => o.filename === file.filename && o.subfolder === file.subfolder && o.type === file.type);
      if (!owned) throw new AppFailure('not_found', `Job ${promptId} has no output ${file.filename}.`);
      const server: ServerProfile | null = record ? { kind: record.serverKind, baseUrl: record.baseUrl } : (session?.server ?? null);
      if (!server) throw new AppFailure('not_found', `Job ${promptId} belongs to no known server.`);
      return withServerApi(server, view.profileId, (api) => outputs.fetch(api, file));
    },

    'input.fetch': async ({ name, subfolder, type }) => {
      const active = await requireSession();
      return outputs.fetch(active.api, { filename: name, subfolder, type });
    },

    'preview.ack': async ({ promptId, seq }) => {
      previews.ack(promptId, seq);
      return null;
    },

    'renderer.ready': async () => {
      // A new renderer holds no frames: release what waits, and tell it the connection state.
      previews.reset();
      hub.emit('connection.state', lastConnection);
      return { version };
    },
  };

  // ---- the envelope ----------------------------------------------------------------------------

  const invoke = async (name: unknown, input: unknown): Promise<Envelope<unknown>> => {
    if (!isCallName(name)) return { ok: false, error: { code: 'invalid_input', message: `"${String(name).slice(0, 100)}" is not a Flowdeck call.` } };
    const spec = calls[name];
    const parsed = spec.input.safeParse(input);
    if (!parsed.success) return { ok: false, error: toIpcError(parsed.error, vault.redact.bind(vault)) };
    try {
      const handler = handlers[name] as (input: unknown) => Promise<unknown>;
      const value = await handler(parsed.data);
      // The result schema is the last filter: a field a handler did not mean to send is dropped.
      const checked = spec.result.safeParse(value);
      if (!checked.success) {
        log('error', `${name} produced an answer outside the contract: ${checked.error.message}`);
        return { ok: false, error: { code: 'internal', message: `The app produced an invalid answer to ${name}.` } };
      }
      return { ok: true, value: checked.data };
    } catch (error) {
      const ipcError = toIpcError(error, vault.redact.bind(vault));
      if (ipcError.code === 'internal') log('error', `${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return { ok: false, error: ipcError };
    }
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
      jobs = await JobStore.open(store, { now });
      await settleDemoJobs(jobs);
      // Every output of every job is kept in the library (downloads resume after a restart).
      library = await Library.open({
        store,
        root: resolveLibraryDir(deps.dataDir, process.env, deps.settings.read().libraryDir),
        ...(deps.libraryTrash ? { trash: deps.libraryTrash } : {}),
        // Downloads go through the active profile's client; other servers' items wait until it is active.
        source: (server) => (session && session.server.kind === server.kind && session.server.baseUrl === server.baseUrl ? session.api : null),
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

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

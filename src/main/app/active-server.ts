// The active server: its ProfileSession (REST client, events socket, job tracker), switched one
// profile at a time, with the pool and the hot folders moved along with it; the connection state
// the indicator shows (with what is known to be wrong: ConnectionProblems); and the ways calls reach
// a server's REST client (the session's, an open pool server's, or a short-lived one).
import type { ConnectionStateView, Envelope, EventName, EventPayload } from '@shared/ipc/contract';
import { describeError } from '@shared/describe-error';
import type { Profile, SettingsStore } from '@main/config/settings';
import type { JobStore } from '@main/jobs/job-store';
import type { JobSnapshot } from '@main/jobs/types';
import type { Library } from '../library';
import type { ServiceApi } from '@main/service/ports';
import type { ServerCapabilities } from '@main/service/capabilities';
import type { ServerKind, ServerProfile } from '@main/service/types';
import { ConnectionProblems } from './connection-problem';
import { AppFailure } from './errors';
import type { HotFoldersHost } from './hot-folders-host';
import type { PoolHost } from './pool-host';
import type { LogLevel } from './ports';
import type { PreviewGate } from './preview-gate';
import type { ProfileDirectory } from './profile-directory';
import { ProfileSession, type ConnectFactory } from './session';
import { connectionHints } from './lazy-connection';

export interface ActiveServerDeps {
  settings: SettingsStore;
  profiles: ProfileDirectory;
  connect: ConnectFactory;
  previews: PreviewGate;
  pools: PoolHost;
  now: () => number;
  pollIntervalMs?: number;
  emit: <E extends EventName>(name: E, payload: EventPayload<E>) => void;
  log: (level: LogLevel, message: string) => void;
  /** Open once the core has started. */
  jobs: () => JobStore | null;
  library: () => Library | null;
  hotFolders: () => HotFoldersHost | null;
  /** A job of the session ended: its outputs go where its origin says. */
  jobEnded: (snapshot: JobSnapshot, profileId: string, server: ServerProfile) => void;
  /**
   * Settles once the first screen is up (first-screen.ts): a session's hot folders and resumed
   * library downloads wait for it. Absent: they start with the session.
   */
  firstScreen?: Promise<void>;
}

export class ActiveServer {
  readonly problems = new ConnectionProblems();
  private readonly deps: ActiveServerDeps;
  private session: ProfileSession | null = null;
  private lastConnection: ConnectionStateView = { profileId: null, state: 'offline', message: 'No server profile is selected.' };
  /** Profile switches run one after another; calls needing the session wait for the current one. */
  private switching: Promise<void> = Promise.resolve();
  private started = false;
  private disposed = false;
  private screenUp = false;

  constructor(deps: ActiveServerDeps) {
    this.deps = deps;
    void (deps.firstScreen ?? Promise.resolve()).then(() => (this.screenUp = true));
  }

  /** The active session, if any (no waiting). */
  current(): ProfileSession | null {
    return this.session;
  }

  /** The connection state the indicator last showed. */
  connection(): ConnectionStateView {
    return this.lastConnection;
  }

  emitConnection(state: ConnectionStateView): void {
    this.lastConnection = { ...state, problem: this.problems.get(state.profileId) };
    this.deps.emit('connection.state', this.lastConnection);
  }

  /** Every answer about a server updates what the indicator knows is wrong with it. */
  noteAnswer(name: string, input: unknown, answer: Envelope<unknown>): void {
    const named = typeof input === 'object' && input !== null ? (input as { profileId?: unknown }).profileId : undefined;
    const target = typeof named === 'string' ? named : this.deps.settings.read().activeProfileId;
    if (this.problems.note(name, target, answer) && target === this.lastConnection.profileId) this.emitConnection(this.lastConnection);
  }

  /** Settles once the session's deferred work (its hot folders) has started, or was not to start. */
  async workStarted(): Promise<void> {
    if (!this.started) return; // before start(): the call is told the app is still starting
    await this.deps.firstScreen;
    await this.switching;
  }

  /** Calls may need the session from now on. */
  markStarted(): void {
    this.started = true;
  }

  switchTo(profileId: string | null): Promise<void> {
    this.switching = this.switching
      .then(() => this.activate(profileId))
      .catch((error: unknown) => this.deps.log('error', `switching profiles failed: ${describeError(error)}`));
    return this.switching;
  }

  /** Restarts the hot folders on the active session, so the pool is opened afresh from the settings. */
  restartFolders(): Promise<void> {
    this.switching = this.switching
      .then(async () => {
        const folders = this.deps.hotFolders();
        if (folders) await folders.restart();
        else await this.deps.pools.restart();
      })
      .catch((error: unknown) => this.deps.log('error', `restarting the hot folders failed: ${describeError(error)}`));
    return this.switching;
  }

  async requireSession(): Promise<ProfileSession> {
    if (!this.started) throw new AppFailure('internal', 'The app is still starting; try again in a moment.');
    await this.switching;
    if (!this.session) {
      const active = this.deps.settings.read().activeProfileId;
      throw new AppFailure(
        active ? 'network' : 'invalid_input',
        active ? (this.lastConnection.message ?? 'The server is not connected.') : 'No server profile is selected. Add or select one first.',
      );
    }
    return this.session;
  }

  /**
   * A REST client for a profile: the session's when it is the active one, else a short-lived one
   * (its socket is never started).
   */
  async withApi<T>(profile: Profile, use: (api: ServiceApi, active: ProfileSession | null) => Promise<T>): Promise<T> {
    await this.switching;
    const session = this.session;
    if (session && session.profileId === profile.id) return use(session.api, session);
    const server = await this.deps.profiles.serverFor(profile);
    const { api, events } = this.deps.connect(server, () => this.deps.profiles.keyFor(profile), connectionHints(profile));
    try {
      return await use(api, null);
    } finally {
      await events.dispose();
    }
  }

  async withServerApi<T>(server: ServerProfile, profileId: string | null, use: (api: ServiceApi) => Promise<T>): Promise<T> {
    await this.switching;
    const open = this.openApiFor(server);
    if (open) return use(open);
    const profile = profileId ? this.deps.settings.read().profiles.find((p) => p.id === profileId) : undefined;
    const { api, events } = this.deps.connect(
      server,
      () => (profile ? this.deps.profiles.keyFor(profile) : null),
      profile ? connectionHints(profile) : undefined,
    );
    try {
      return await use(api);
    } finally {
      await events.dispose();
    }
  }

  /** The open connection to `server`: the active session's, else the open pool's (no new connection). */
  openApiFor(server: { kind: ServerKind; baseUrl: string }): ServiceApi | null {
    const session = this.session;
    if (session && session.server.baseUrl === server.baseUrl && session.server.kind === server.kind) return session.api;
    const pooled = this.deps.pools.current()?.sessionFor(server.baseUrl) ?? null;
    return pooled && pooled.server.kind === server.kind ? pooled.api : null;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.switching;
    await this.deps.hotFolders()?.dispose();
    await this.deps.pools.dispose();
    await this.session?.dispose();
    this.session = null;
  }

  private async activate(profileId: string | null): Promise<void> {
    const previous = this.session;
    this.session = null;
    // Hot folders stop first: their uploads under way finish on the old connection.
    await this.deps.hotFolders()?.detach();
    await this.deps.pools.detach();
    await previous?.dispose();
    const jobs = this.deps.jobs();
    if (!profileId || this.disposed || !jobs) {
      this.emitConnection({ profileId: null, state: 'offline', message: 'No server profile is selected.' });
      return;
    }
    const profile = this.deps.settings.read().profiles.find((p) => p.id === profileId);
    if (!profile) return;
    const profiles = this.deps.profiles;
    // A cloud server without a key cannot run anything: say so rather than only "connected".
    const keyless = profiles.needsKey(profile) && !(await profiles.keyFor(profile));
    if (keyless) this.problems.set(profile.id, 'no_key');
    else if (this.problems.get(profile.id) === 'no_key') this.problems.set(profile.id, null);
    let server: ServerProfile;
    try {
      server = await profiles.serverFor(profile);
    } catch (error) {
      this.deps.log('error', `could not start the built-in demo service: ${describeError(error)}`);
      this.emitConnection({ profileId, state: 'offline', message: `The built-in demo service could not start: ${describeError(error)}` });
      return;
    }
    if (this.disposed) return;
    if (profile.kind === 'demo') this.deps.emit('profiles.changed', profiles.state()); // its address is known now
    const next = new ProfileSession({
      profileId: profile.id,
      server,
      apiKey: () => profiles.keyFor(profile),
      connect: this.deps.connect,
      connection: connectionHints(profile),
      jobs,
      previews: this.deps.previews,
      now: this.deps.now,
      ...(this.deps.pollIntervalMs !== undefined ? { pollIntervalMs: this.deps.pollIntervalMs } : {}),
      outputs: {
        connection: (state) => {
          if (this.session === next) this.emitConnection(state);
        },
        job: (snapshot) => this.deps.emit('job.update', snapshot),
        jobEnded: (snapshot) => this.deps.jobEnded(snapshot, profile.id, server),
        queue: (queue) => this.deps.emit('queue.changed', queue),
        warn: (message) => this.deps.log('warn', message),
        discovered: (capabilities) => void this.noteKeyNeed(next, profile, capabilities),
      },
    });
    this.session = next;
    next.start();
    await this.deps.pools.attach(next);
    if (this.screenUp || !this.deps.firstScreen) {
      await this.startWork(next);
      return;
    }
    // Before the first screen: the session's work waits for it, then runs in turn with switches.
    void this.deps.firstScreen.then(() => {
      this.switching = this.switching
        .then(() => this.startWork(next))
        .catch((error: unknown) => this.deps.log('error', `starting the hot folders failed: ${describeError(error)}`));
    });
  }

  /**
   * What a Comfy API v2 server's own answer says of the key (401 to a request, or not): "no key"
   * when it wants one and none is set, "key rejected" when the one set was refused, and a key
   * problem that answer disproves is cleared. So a self-hosted proxy without a token is never
   * asked for a key, and one with a token is asked only once it answered 401.
   */
  private async noteKeyNeed(session: ProfileSession, profile: Profile, capabilities: ServerCapabilities): Promise<void> {
    if (capabilities.contract !== 'v2') return; // v1's word on keys is its kind's, not the server's
    const hasKey = await this.deps.profiles.hasKey(profile);
    if (this.disposed || this.session !== session) return;
    const before = this.problems.get(profile.id);
    const keyProblem = before === 'no_key' || before === 'key_rejected';
    const after = capabilities.needsApiKey ? (hasKey ? 'key_rejected' : 'no_key') : keyProblem ? null : before;
    if (after === before) return;
    this.problems.set(profile.id, after);
    if (this.lastConnection.profileId === profile.id) this.emitConnection(this.lastConnection);
  }

  /** The session's hot folders and its library downloads to resume, unless it has been replaced since. */
  private async startWork(session: ProfileSession): Promise<void> {
    if (this.disposed || this.session !== session) return;
    await this.deps
      .hotFolders()
      ?.attach(session)
      .catch((error: unknown) => this.deps.log('error', `Could not start the hot folders: ${describeError(error)}`));
    void this.deps
      .library()
      ?.resumePending({ server: session.profileId })
      .catch((error: unknown) => this.deps.log('warn', `Could not resume library downloads: ${describeError(error)}`));
  }
}

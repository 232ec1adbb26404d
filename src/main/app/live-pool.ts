// The pool as the app runs it: one connection (REST client, events socket, job tracker) per pool
// server, the active server's own session reused rather than opened twice (two trackers of one
// profile would both reconcile its jobs), and the ServerPool over them that hot folders set to
// "Run on: Pool" and the Run view's repeated runs share. Opened when the hot folders start and a
// folder needs it, or when a run is sent to the pool; disposed with the hot folders (profile
// switch, pool settings changed). Servers that cannot be used (no key, the same
// server twice) are left out and shown out of rotation with the reason; the others run.
import type { JobSnapshotView } from '@shared/ipc/contract';
import type { PoolMemberStatusView, PoolStatusView } from '@shared/ipc/pool-contract';
import type { PoolEntry, Profile } from '@main/config/settings';
import type { JobStore } from '@main/jobs/job-store';
import type { JobTracker } from '@main/jobs/tracker';
import type { JobSnapshot } from '@main/jobs/types';
import { DuplicateServersError, ServerPool, type PoolServer } from '@main/pool/server-pool';
import { poolTiming } from '@main/pool/pool-timing';
import type { ServerProfile } from '@main/service/types';
import { trackerFollower } from '@main/jobs/job-follower';
import type { UnusablePool } from '@main/watch/service';
import { checkPoolEntries, type PoolProfiles } from './pool-settings';
import type { PreviewGate } from './preview-gate';
import { ProfileSession, type ConnectFactory } from './session';
import { connectionHints } from './lazy-connection';
import { describeError } from '@shared/describe-error';

export interface LivePoolDeps extends PoolProfiles {
  entries: readonly PoolEntry[];
  serverFor(profile: Profile): Promise<ServerProfile>;
  keyFor(profile: Profile): Promise<string | null>;
  connect: ConnectFactory;
  jobs: JobStore;
  previews: PreviewGate;
  now: () => number;
  pollIntervalMs?: number;
  warn(message: string): void;
  /** A job on a pool server other than the active one changed (the Jobs panel shows its card live). */
  job(snapshot: JobSnapshotView): void;
  /**
   * A job this pool's own connection saw end: the app records its outputs as the active session
   * does (a job run from the window on that server earlier is finished here, and must not lose
   * its outputs; a hot folder's jobs reach the library through their folder).
   */
  jobEnded(snapshot: JobSnapshot, profileId: string, server: ServerProfile): void;
}

/** How long opening the pool waits for a cloud server to tell its account's concurrency limit. */
const DISCOVERY_WAIT_MS = 5_000;

interface Left {
  name: string;
  profileId: string | null;
  reason: string;
}

export class LivePool {
  private readonly listeners = new Set<(status: PoolStatusView) => void>();
  private readonly offPool: () => void;
  private readonly closing = new AbortController();
  private disposed = false;

  private constructor(
    readonly pool: ServerPool,
    /** Sessions by the base URL of their member (the active session among them). */
    private readonly sessions: ReadonlyMap<string, { session: ProfileSession; profile: Profile }>,
    /** Sessions this pool opened (and so closes). */
    private readonly owned: readonly ProfileSession[],
    private readonly left: readonly Left[],
  ) {
    this.offPool = pool.on((event) => {
      if (event.type === 'status') this.publish();
    });
  }

  /**
   * Opens the pool of `deps.entries`; `active` is the active profile's session (reused for its
   * server). When no server of the pool can be used (every problem has been warned of): why, in
   * words for the user (the pause reason of the folders set to run on the pool).
   */
  static async open(deps: LivePoolDeps, active: ProfileSession | null): Promise<LivePool | UnusablePool> {
    if (deps.entries.length === 0) return { unusable: 'No server is in the pool.' };
    const checks = await checkPoolEntries(deps.entries, deps);
    const left: Left[] = [];
    /** Why each server left out cannot be used, each sentence naming its server. */
    const problems: string[] = [];
    const owned: ProfileSession[] = [];
    const chosen: Array<{ profile: Profile; session: ProfileSession; entry: PoolEntry }> = [];
    for (const check of checks) {
      if (check.problem !== null) {
        deps.warn(`The pool leaves a server out: ${check.problem}`);
        left.push({ name: check.profile?.name ?? check.entry.profileId, profileId: check.profile?.id ?? null, reason: check.problem });
        problems.push(check.problem);
        continue;
      }
      const profile = check.profile;
      if (active && active.profileId === profile.id) {
        chosen.push({ profile, session: active, entry: check.entry });
        continue;
      }
      let server: ServerProfile;
      try {
        server = await deps.serverFor(profile);
      } catch (error) {
        const reason = `it cannot be started: ${describeError(error)}`;
        deps.warn(`The pool leaves "${profile.name}" out: ${reason}`);
        left.push({ name: profile.name, profileId: profile.id, reason });
        problems.push(`"${profile.name}" cannot be started: ${describeError(error)}.`);
        continue;
      }
      const session = new ProfileSession({
        profileId: profile.id,
        server,
        apiKey: () => deps.keyFor(profile),
        connect: deps.connect,
        connection: connectionHints(profile),
        jobs: deps.jobs,
        previews: deps.previews,
        now: deps.now,
        ...(deps.pollIntervalMs !== undefined ? { pollIntervalMs: deps.pollIntervalMs } : {}),
        // The pool's status speaks for its servers; the Queue view reads their queues itself. Its
        // jobs reach the Jobs panel live (their cards act on the job's own server).
        outputs: {
          connection: () => undefined,
          job: deps.job,
          queue: () => undefined,
          warn: deps.warn,
          jobEnded: (snapshot) => deps.jobEnded(snapshot, profile.id, server),
        },
      });
      session.start();
      owned.push(session);
      chosen.push({ profile, session, entry: check.entry });
    }
    if (chosen.length === 0) {
      await Promise.all(owned.map((s) => s.dispose()));
      return { unusable: problems.join(' ') };
    }
    // In a pool a job whose server stops answering gives up, so the pool can move it elsewhere (as
    // the CLI's pool does); one server alone rides an outage out, as a folder on the active server does.
    const giveUpWhenUnreachable = chosen.length > 1;
    const servers: PoolServer[] = await Promise.all(
      chosen.map(async ({ profile, session, entry }) => ({
        name: profile.name,
        api: session.api,
        follower: trackerFollower(session.tracker, { giveUpWhenUnreachable }),
        clientId: () => session.events.clientId,
        // A server that tells its account's limit (the cloud's /api/features) is held to it; the
        // setting otherwise. Asked of the server's capabilities, not of its kind.
        concurrency: (await accountLimit(session)) ?? entry.concurrency,
        profileId: profile.id,
      })),
    );
    let pool: ServerPool;
    try {
      pool = new ServerPool(servers, poolTiming());
    } catch (error) {
      // Two profiles whose addresses differ only as written; the check above catches the rest.
      await Promise.all(owned.map((s) => s.dispose()));
      if (error instanceof DuplicateServersError) deps.warn(error.message);
      throw error;
    }
    const sessions = new Map(pool.members.map((member, i) => [member.baseUrl, { session: chosen[i]!.session, profile: chosen[i]!.profile }]));
    return new LivePool(pool, sessions, owned, left);
  }

  /** The tracker following jobs on the server at `baseUrl` (a file row's server). */
  trackerFor(baseUrl: string | null): JobTracker | null {
    return this.sessionFor(baseUrl)?.tracker ?? null;
  }

  /** The connection to the server at `baseUrl`, when it is in the pool. */
  sessionFor(baseUrl: string | null): ProfileSession | null {
    const member = this.pool.memberFor(baseUrl);
    return member ? (this.sessions.get(member.baseUrl)?.session ?? null) : null;
  }

  /** Every pool server's connection (the active session among them when it is in the pool). */
  allSessions(): ProfileSession[] {
    return [...this.sessions.values()].map(({ session }) => session);
  }

  /** Aborted when the pool closes: work waiting for one of its servers stops waiting. */
  get closed(): AbortSignal {
    return this.closing.signal;
  }

  /** The profile of the server at `baseUrl`, when it is in the pool. */
  profileFor(baseUrl: string | null): Profile | null {
    const member = baseUrl === null ? null : this.pool.memberFor(baseUrl);
    return member ? (this.sessions.get(member.baseUrl)?.profile ?? null) : null;
  }

  /** Every session's tracker (progress of the files running on any pool server). */
  trackers(): JobTracker[] {
    return [...this.sessions.values()].map(({ session }) => session.tracker);
  }

  status(): PoolStatusView {
    const { members, jobsPerMinute } = this.pool.status();
    const views: PoolMemberStatusView[] = members.map((m) => ({
      name: m.name,
      profileId: this.sessions.get(m.baseUrl)?.profile.id ?? null,
      inRotation: m.inRotation,
      reason: m.reason,
      running: m.running,
      concurrency: m.concurrency,
      done: m.done,
      failed: m.failed,
    }));
    for (const l of this.left)
      views.push({ name: l.name, profileId: l.profileId, inRotation: false, reason: l.reason, running: 0, concurrency: null, done: 0, failed: 0 });
    return { active: true, members: views, jobsPerMinute };
  }

  onStatus(listener: (status: PoolStatusView) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.closing.abort();
    this.offPool();
    this.listeners.clear();
    this.pool.dispose();
    await Promise.all(this.owned.map((s) => s.dispose()));
  }

  private publish(): void {
    if (this.listeners.size === 0) return;
    const status = this.status();
    for (const listener of [...this.listeners]) listener(status);
  }
}

/** The pool's status while no pool runs. */
export const NO_POOL_STATUS: PoolStatusView = { active: false, members: [], jobsPerMinute: 0 };

/** The account's concurrency limit as the session's discovery found it, waiting a bounded time; null when it does not say. */
async function accountLimit(session: ProfileSession): Promise<number | null> {
  const capabilities = await session.discoveredWithin(DISCOVERY_WAIT_MS);
  return capabilities && capabilities.maxConcurrentJobs !== null && capabilities.maxConcurrentJobs >= 1 ? capabilities.maxConcurrentJobs : null;
}

// A pool of servers that act as one queue. Each server (a member) has its own connection, job
// follower and concurrency; the pool says which member a job may go to (one that can run it, with
// room, least loaded first, ties to the user's preference order), takes a member that stops
// answering out of rotation and probes it until it answers again, and keeps the figures the
// status line shows. The hot folder runner asks it; a pool of one is today's single server: it
// never checks definitions, never takes its server out of rotation and caps nothing itself.
import type { NodeDefinitions } from '@main/service/object-info';
import type { ServiceApi } from '@main/service/ports';
import type { Workflow } from '@main/service/types';
import type { InputRef } from '@main/workflow/edit';
import type { JobFollower } from '@main/jobs/job-follower';
import { serverLacks } from './eligibility';
import { normaliseBaseUrl } from '@main/config/settings';
import { describeError } from '@shared/describe-error';
import { ServiceError } from '@main/service/errors';

export interface PoolServer {
  /** Shown to the user: the profile's name, or the server's address. */
  name: string;
  api: ServiceApi;
  follower: JobFollower;
  /** The events socket's client id for this server (a local server routes a job's events to it). */
  clientId: () => string;
  /** Jobs the pool sends this server at once; null: no cap of the pool's own (a pool of one). */
  concurrency: number | null;
  /** The settings profile of the server, recorded with each job (the app's pools); else the folder's. */
  profileId?: string | null;
}

export interface PoolOptions {
  /** Between probes of a server out of rotation. */
  probeIntervalMs?: number;
  /**
   * How long jobs a server had started wait for it to answer again (counted from when it stopped
   * answering) before they are sent to another server.
   */
  reconcileAfterMs?: number;
  now?: () => number;
}

export const DEFAULT_PROBE_INTERVAL_MS = 2_000;
export const DEFAULT_RECONCILE_AFTER_MS = 60_000;

export interface MemberStatus {
  name: string;
  baseUrl: string;
  inRotation: boolean;
  /** Why it is out of rotation. */
  reason: string | null;
  downSince: number | null;
  /** Jobs under way on it for this pool (sending, running or delivering). */
  running: number;
  concurrency: number | null;
  done: number;
  failed: number;
}

export interface PoolStatus {
  members: MemberStatus[];
  /** Jobs finished per minute over the last minute, all members together. */
  jobsPerMinute: number;
}

export type PoolEvent = { type: 'status'; status: PoolStatus } | { type: 'rejoined'; member: PoolMember } | { type: 'down'; member: PoolMember };

/** Where a job can go now. */
export type PoolChoice =
  | { kind: 'server'; member: PoolMember }
  /** Every member that can run it is full: wait for a job to end. */
  | { kind: 'busy' }
  /** Every member that can run it (or might: definitions not read yet) is out of rotation. */
  | { kind: 'down'; reason: string }
  /** No member can run it: each lacks something, named. */
  | { kind: 'none'; reason: string };

export class PoolMember {
  readonly baseUrl: string;
  inFlight = 0;
  done = 0;
  failed = 0;
  down: { since: number; reason: string } | null = null;
  definitions: NodeDefinitions | null = null;
  /** Bumped when the definitions change, so cached verdicts are asked again. */
  definitionsVersion = 0;
  /**
   * The server has no node definitions to judge by (a v2-only deployment): it is sent any job and
   * judges the workflow itself, as a pool of one does.
   */
  judgesItself = false;

  constructor(
    readonly server: PoolServer,
    readonly index: number,
  ) {
    this.baseUrl = normaliseBaseUrl(server.api.profile.baseUrl);
  }

  get name(): string {
    return this.server.name;
  }

  get api(): ServiceApi {
    return this.server.api;
  }

  hasRoom(): boolean {
    return this.server.concurrency === null || this.inFlight < this.server.concurrency;
  }

  /** How full it is (0 = idle); a member without a cap of its own counts its jobs. */
  load(): number {
    return this.server.concurrency === null ? this.inFlight : this.inFlight / Math.max(1, this.server.concurrency);
  }
}

export class DuplicateServersError extends Error {
  constructor(baseUrl: string) {
    super(`The pool names the server ${baseUrl} twice. Each server may be in a pool once; give it a higher concurrency instead.`);
    this.name = 'DuplicateServersError';
  }
}

export class ServerPool {
  readonly members: readonly PoolMember[];
  readonly probeIntervalMs: number;
  readonly reconcileAfterMs: number;
  private readonly now: () => number;
  private readonly listeners = new Set<(event: PoolEvent) => void>();
  private readonly probes = new Map<PoolMember, ReturnType<typeof setTimeout>>();
  private readonly verdicts = new WeakMap<Workflow, Map<PoolMember, { version: number; lacks: string[] }>>();
  /** End times of the last minute's jobs, for the throughput figure. */
  private readonly finishedAt: number[] = [];
  private disposed = false;

  constructor(servers: readonly PoolServer[], options: PoolOptions = {}) {
    if (servers.length === 0) throw new Error('A pool needs at least one server.');
    const seen = new Set<string>();
    this.members = servers.map((server, index) => {
      const member = new PoolMember(server, index);
      if (seen.has(member.baseUrl)) throw new DuplicateServersError(member.baseUrl);
      seen.add(member.baseUrl);
      return member;
    });
    this.probeIntervalMs = options.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
    this.reconcileAfterMs = options.reconcileAfterMs ?? DEFAULT_RECONCILE_AFTER_MS;
    this.now = options.now ?? Date.now;
  }

  /** One server: today's behaviour, no checks or failover of the pool's own. */
  get isSingle(): boolean {
    return this.members.length === 1;
  }

  /** The member at `baseUrl` (a job journaled there is collected from it), or null. */
  memberFor(baseUrl: string | null): PoolMember | null {
    if (baseUrl === null) return this.isSingle ? this.members[0]! : null;
    const wanted = normaliseBaseUrl(baseUrl);
    return this.members.find((m) => m.baseUrl === wanted) ?? null;
  }

  /**
   * Reads every member's node definitions (at once, each bounded by its client's deadline). A
   * member whose definitions cannot be read is out of rotation with the reason, and probed; the
   * others go on. A pool of one reads nothing: its server judges the workflow itself, as today.
   */
  async prepare(): Promise<void> {
    if (this.isSingle) return;
    await Promise.all(this.members.map((member) => this.readDefinitions(member)));
  }

  on(listener: (event: PoolEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Where a job of `workflow` can go now; `avoid`: members this job must not use (its upload is too big there, say). */
  choose(workflow: Workflow, skip: readonly InputRef[], avoid: ReadonlyMap<string, string> = new Map()): PoolChoice {
    if (this.isSingle) {
      const only = this.members[0]!;
      const refused = avoid.get(only.baseUrl);
      if (refused) return { kind: 'none', reason: refused };
      // Its cap holds as for any member (`run --repeat N --concurrency C` on one server).
      return only.hasRoom() ? { kind: 'server', member: only } : { kind: 'busy' };
    }
    const able: PoolMember[] = [];
    const unknown: PoolMember[] = [];
    const lacking: string[] = [];
    for (const member of this.members) {
      const refused = avoid.get(member.baseUrl);
      if (refused) {
        lacking.push(`${member.name}: ${refused}`);
        continue;
      }
      if (member.judgesItself) {
        able.push(member);
        continue;
      }
      if (member.definitions === null) {
        unknown.push(member);
        continue;
      }
      const lacks = this.lacksOf(member, workflow, skip);
      if (lacks.length > 0) lacking.push(`${member.name} lacks ${lacks.join(' and ')}`);
      else able.push(member);
    }
    const up = able.filter((m) => m.down === null);
    if (up.length > 0) {
      const free = up.filter((m) => m.hasRoom());
      if (free.length === 0) return { kind: 'busy' };
      free.sort((a, b) => a.load() - b.load() || a.index - b.index);
      return { kind: 'server', member: free[0]! };
    }
    if (able.length > 0 || unknown.length > 0) {
      const waiting = [...able, ...unknown];
      return {
        kind: 'down',
        reason: `Every server that can run this workflow is out of rotation: ${waiting.map((m) => `${m.name} (${m.down?.reason ?? 'not answering'})`).join('; ')}.`,
      };
    }
    return { kind: 'none', reason: `No server in the pool can run this workflow. ${lacking.join('; ')}.` };
  }

  /** A job starts on `member`. */
  take(member: PoolMember): void {
    member.inFlight += 1;
    this.publish();
  }

  /** A job left `member`: finished ('done'/'failed') or moved elsewhere ('moved'). */
  release(member: PoolMember, outcome: 'done' | 'failed' | 'moved'): void {
    member.inFlight = Math.max(0, member.inFlight - 1);
    if (outcome === 'done') {
      member.done += 1;
      this.finishedAt.push(this.now());
    } else if (outcome === 'failed') member.failed += 1;
    this.publish();
  }

  /**
   * `member` stopped answering (a request failed for the network, or a job's follower gave up):
   * out of rotation until a probe gets an answer. Ignored for a pool of one, which keeps today's
   * retries and backoff.
   */
  markDown(member: PoolMember, error: unknown): void {
    if (this.isSingle || this.disposed) return;
    if (member.down === null) {
      member.down = { since: this.now(), reason: describeError(error) };
      this.emit({ type: 'down', member });
      this.publish();
    }
    this.scheduleProbe(member);
  }

  status(): PoolStatus {
    const cutoff = this.now() - 60_000;
    while (this.finishedAt.length > 0 && this.finishedAt[0]! < cutoff) this.finishedAt.shift();
    return {
      members: this.members.map((m) => ({
        name: m.name,
        baseUrl: m.baseUrl,
        inRotation: m.down === null,
        reason: m.down?.reason ?? null,
        downSince: m.down?.since ?? null,
        running: m.inFlight,
        concurrency: m.server.concurrency,
        done: m.done,
        failed: m.failed,
      })),
      jobsPerMinute: this.finishedAt.length,
    };
  }

  dispose(): void {
    this.disposed = true;
    for (const timer of this.probes.values()) clearTimeout(timer);
    this.probes.clear();
    this.listeners.clear();
  }

  private lacksOf(member: PoolMember, workflow: Workflow, skip: readonly InputRef[]): string[] {
    let perMember = this.verdicts.get(workflow);
    if (!perMember) {
      perMember = new Map();
      this.verdicts.set(workflow, perMember);
    }
    const cached = perMember.get(member);
    if (cached && cached.version === member.definitionsVersion) return cached.lacks;
    const lacks = serverLacks(workflow, member.definitions!, skip);
    perMember.set(member, { version: member.definitionsVersion, lacks });
    return lacks;
  }

  private async readDefinitions(member: PoolMember): Promise<boolean> {
    if (!member.api.capabilities.nodeDefinitions) {
      member.judgesItself = true;
      return true;
    }
    try {
      member.definitions = await member.api.getNodeDefinitions();
      member.definitionsVersion += 1;
      return true;
    } catch (error) {
      if (member.definitions === null) {
        this.markDown(member, new Error(`its node definitions cannot be read: ${describeError(error)}`));
      }
      return false;
    }
  }

  private scheduleProbe(member: PoolMember): void {
    if (this.probes.has(member) || this.disposed) return;
    this.probes.set(
      member,
      setTimeout(() => {
        void this.probe(member);
      }, this.probeIntervalMs),
    );
  }

  /** Asks a member out of rotation whether it answers again; it rejoins once it does (and its definitions are known). */
  private async probe(member: PoolMember): Promise<void> {
    this.probes.delete(member);
    if (this.disposed || member.down === null) return;
    let answers = false;
    try {
      await answersNow(member.api);
      answers = true;
    } catch {
      answers = false;
    }
    if (answers && member.definitions === null) answers = await this.readDefinitions(member);
    if (this.disposed) return;
    if (!answers) {
      this.scheduleProbe(member);
      return;
    }
    member.down = null;
    this.emit({ type: 'rejoined', member });
    this.publish();
  }

  private publish(): void {
    if (this.listeners.size === 0) return;
    this.emit({ type: 'status', status: this.status() });
  }

  private emit(event: PoolEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // A listener's failure must not stop the pool.
      }
    }
  }
}

/**
 * Whether a server answers at all: its queue, or on a server without one (v2 only) the status of a
 * job id that cannot exist, whose "not found" is an answer.
 */
export async function answersNow(api: PoolServer['api']): Promise<void> {
  if (api.capabilities.serverQueue) {
    await api.getQueue();
    return;
  }
  try {
    await api.getJobStatus(NO_SUCH_JOB);
  } catch (error) {
    if (!(error instanceof ServiceError) || error.kind !== 'not_found') throw error;
  }
}

/** A job id no server hands out (the nil UUID's version-4 form). */
const NO_SUCH_JOB = '00000000-0000-4000-8000-000000000000';

// Hosts the pool of servers (LivePool) beside the active server: opened when something needs it (a
// hot folder set to "Run on: Pool", a run from the Run view), on the active session's connection,
// and closed when that session goes or the pool's settings change. Hot folders and the Run view
// both use it, so neither depends on the other to run on the pool.
import type { PoolStatusView } from '@shared/ipc/contract';
import { describeError } from '@shared/describe-error';
import type { UnusablePool } from '@main/watch/service';
import { LatestWins } from '@shared/latest-wins';
import { NO_POOL_STATUS, type LivePool } from './live-pool';
import type { ProfileSession } from './session';

/** Throttle of pool.status (ms): every job start and end changes it. */
const POOL_STATUS_MS = 250;

export interface PoolHostDeps {
  /**
   * Opens the pool's connections (the active session reused); UnusablePool: no server of the pool
   * can be used, and why; null: it cannot be opened at all (no job journal). Absent: no pool.
   */
  open?: (active: ProfileSession) => Promise<LivePool | UnusablePool | null>;
  /** pool.status to the renderer. */
  emitStatus: (status: PoolStatusView) => void;
}

export class PoolHost {
  private readonly deps: PoolHostDeps;
  private session: ProfileSession | null = null;
  private pool: LivePool | null = null;
  /** The pool being opened, so two callers at once open it once. */
  private opening: Promise<void> | null = null;
  /** Why the pool could not be opened the last time it was tried; null: not tried, or it opened. */
  private problem: string | null = null;
  /** Bumped whenever the pool must be opened afresh: an opening begun before is discarded. */
  private generation = 0;
  private offStatus: (() => void) | null = null;
  private readonly opened = new Set<(pool: LivePool) => void>();
  private readonly statusEvents: LatestWins<PoolStatusView>;

  constructor(deps: PoolHostDeps) {
    this.deps = deps;
    this.statusEvents = new LatestWins(POOL_STATUS_MS, (status) => deps.emitStatus(status));
  }

  /** The active session the pool reuses; the pool opens on it at its first use. */
  async attach(session: ProfileSession): Promise<void> {
    await this.close();
    this.session = session;
  }

  /** The active session goes: the pool closes with it. */
  async detach(): Promise<void> {
    this.session = null;
    await this.close();
  }

  /** The pool's settings changed: it closes now and opens afresh at its next use. */
  async restart(): Promise<void> {
    await this.close();
  }

  /** The open pool, if any (no opening, no waiting). */
  current(): LivePool | null {
    return this.pool;
  }

  /** Why the pool could not be opened the last time it was tried, or null. */
  problemText(): string | null {
    return this.problem;
  }

  /** The open pool's status (servers, jobs per server, throughput), or that none runs. */
  status(): PoolStatusView {
    return this.pool?.status() ?? NO_POOL_STATUS;
  }

  /**
   * The pool, opened now (its servers' definitions read) when none is open yet. Null when no
   * server is connected or no server of the pool can be used (problemText says why).
   */
  async use(): Promise<LivePool | null> {
    await this.ensureOpen();
    return this.pool;
  }

  /** Opens the pool (once) when a session is attached; throws what opening it threw. */
  ensureOpen(): Promise<void> {
    const session = this.session;
    const open = this.deps.open;
    if (this.pool || !session || !open) return Promise.resolve();
    if (this.opening) return this.opening;
    const opening = this.openNow(session, open, this.generation).finally(() => {
      if (this.opening === opening) this.opening = null;
    });
    this.opening = opening;
    return opening;
  }

  /** Calls `listener` with each pool as it opens (hot folders follow its trackers' progress). */
  onOpened(listener: (pool: LivePool) => void): () => void {
    this.opened.add(listener);
    return () => this.opened.delete(listener);
  }

  async dispose(): Promise<void> {
    this.session = null;
    await this.close();
    this.statusEvents.clear();
  }

  private async openNow(session: ProfileSession, open: NonNullable<PoolHostDeps['open']>, generation: number): Promise<void> {
    let pool: LivePool | UnusablePool | null;
    try {
      pool = await open(session);
    } catch (error) {
      this.problem = describeError(error);
      throw error;
    }
    if (!pool || 'unusable' in pool) {
      this.problem = pool?.unusable ?? 'the pool cannot be opened (the job journal is not available).';
      return;
    }
    this.problem = null;
    if (generation !== this.generation || this.session !== session) {
      await pool.dispose();
      return;
    }
    await pool.pool.prepare();
    this.pool = pool;
    this.offStatus = pool.onStatus((status) => this.statusEvents.offer('pool', status));
    for (const listener of this.opened) listener(pool);
    this.statusEvents.offer('pool', pool.status());
  }

  private async close(): Promise<void> {
    this.generation += 1;
    this.opening = null;
    this.problem = null;
    const pool = this.pool;
    this.pool = null;
    this.offStatus?.();
    this.offStatus = null;
    if (!pool) return;
    await pool.dispose();
    this.statusEvents.clear();
    this.deps.emitStatus(NO_POOL_STATUS);
  }
}

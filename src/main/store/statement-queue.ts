// The store's one queue of work on its one connection, with group commit.
//
// Every task runs alone and in order, as a plain queue would run it, except that a run of single
// statements waiting together (several callers writing at once: a hot folder's jobs, the library's
// imports, the journals) is wrapped in one BEGIN IMMEDIATE ... COMMIT. Each statement on its own
// is a transaction of its own, and a commit is the costly part of a small write: the WAL frames of
// every page it touched, the write and read locks, and the full-text index's segment flushed per
// commit. A group writes each page once and the index once.
//
// What a caller sees does not change: its statement's promise settles only after the COMMIT that
// made it durable (as durable as a statement alone: WAL at synchronous=NORMAL), so a caller that
// acts once its write is on disk (a prompt id before its submit) still acts after it is. A
// statement that fails inside a group fails alone, as it would alone, and ends the group: the
// statements before it commit (or, when SQLite rolled the whole transaction back, as it does for a
// full disk or an I/O error, they are rejected with that cause: none of them was kept), the ones
// after it run in the next group. Reads in a group see the writes before them, as in order.
// Transactions (BEGIN ... COMMIT of their own), multi-statement exec and statements that cannot run
// inside a transaction (PRAGMA, VACUUM, ...) always run alone.

/** How a task may run: a read or a write may share a transaction with its neighbours; 'alone' never does. */
export type TaskKind = 'read' | 'write' | 'alone';

/** What the queue needs from the connection to open and close a group. */
export interface GroupConnection {
  begin(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

export interface GroupOptions {
  /** The fewest statements waiting (the first a write) that are worth a BEGIN and a COMMIT (two more round trips). */
  minGroup?: number;
  /** The most statements in one group: a group's first caller waits for its last statement. */
  maxGroup?: number;
}

interface Task {
  run: () => Promise<unknown>;
  kind: TaskKind;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Statements that SQLite refuses or ignores inside a transaction, or that manage one themselves. */
const NOT_IN_A_GROUP = /^\s*(PRAGMA|VACUUM|BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|ATTACH|DETACH)\b/i;
const READ = /^\s*SELECT\b/i;

/** The kind of a single statement, from its text. */
export function statementKind(sql: string): TaskKind {
  if (NOT_IN_A_GROUP.test(sql)) return 'alone';
  return READ.test(sql) ? 'read' : 'write';
}

/** A write's outcome when its group was rolled back by a later statement's failure. */
export class GroupRolledBackError extends Error {
  constructor(cause: unknown) {
    super(`The write was rolled back with the statements committed beside it: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'GroupRolledBackError';
  }
}

export class StatementQueue {
  private readonly tasks: Task[] = [];
  private draining: Promise<void> | null = null;
  private readonly minGroup: number;
  private readonly maxGroup: number;
  /** Groups committed and statements they held, for tests and benchmarks. */
  readonly stats = { groups: 0, grouped: 0 };

  constructor(
    private readonly connection: GroupConnection,
    options: GroupOptions = {},
  ) {
    this.minGroup = Math.max(2, options.minGroup ?? 3);
    this.maxGroup = Math.max(this.minGroup, options.maxGroup ?? 64);
  }

  /** Queues `run`; its promise settles once it ran (and, in a group, once the group committed). */
  push<T>(run: () => Promise<T>, kind: TaskKind): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.tasks.push({ run, kind, resolve: resolve as (value: unknown) => void, reject });
      // Started a microtask later, so the statements queued in the same turn can share a group.
      this.draining ??= Promise.resolve().then(() => this.drain());
    });
  }

  /** Resolves once every task queued so far has settled. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      while (this.tasks.length > 0) {
        if (this.groupable() >= this.minGroup && this.tasks[0]!.kind === 'write') await this.runGroup();
        else await this.runAlone(this.tasks.shift()!);
      }
    } finally {
      this.draining = null;
    }
  }

  /** How many statements from the head of the queue could share a transaction. */
  private groupable(): number {
    let n = 0;
    while (n < this.tasks.length && this.tasks[n]!.kind !== 'alone') n += 1;
    return n;
  }

  private async runAlone(task: Task): Promise<void> {
    try {
      task.resolve(await task.run());
    } catch (error) {
      task.reject(error);
    }
  }

  private async runGroup(): Promise<void> {
    try {
      await this.connection.begin();
    } catch {
      // No group now (another process holds the write lock past the busy timeout, say): the head
      // runs alone and meets the same condition itself.
      await this.runAlone(this.tasks.shift()!);
      return;
    }
    const ran: { task: Task; value: unknown }[] = [];
    let failed: { task: Task; error: unknown } | null = null;
    // Statements queued while the group runs join it, up to the bound.
    while (ran.length < this.maxGroup && this.tasks.length > 0 && this.tasks[0]!.kind !== 'alone') {
      const task = this.tasks.shift()!;
      try {
        ran.push({ task, value: await task.run() });
      } catch (error) {
        failed = { task, error };
        break;
      }
    }
    try {
      await this.connection.commit();
    } catch (commitError) {
      // No transaction left to commit (SQLite rolled it back on the failure) or a commit that
      // failed: nothing of the group was kept.
      await this.connection.rollback().catch(() => undefined);
      // "No transaction is active": the failed statement's error rolled it back; else the commit's own.
      const cause = failed && /no transaction is active/i.test(String(commitError)) ? failed.error : commitError;
      for (const { task } of ran) task.reject(new GroupRolledBackError(cause));
      failed?.task.reject(failed.error);
      return;
    }
    this.stats.groups += 1;
    this.stats.grouped += ran.length;
    for (const { task, value } of ran) task.resolve(value);
    failed?.task.reject(failed.error);
  }
}

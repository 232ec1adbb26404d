// The app's embedded SQLite store: one file, one connection, shared by the job journal, the
// outputs library and the hot-folder journal. Each of those modules registers its own numbered
// migrations under its own name, so they evolve their tables independently in the same file.
//
// Every statement goes through one queue. node-sqlite3 gives no ordering between statements issued
// from different async callers on one connection, so without the queue a statement from one caller
// could land inside another caller's open transaction. Inside `transaction(fn)` the statements of
// `fn` (whether issued through the handle it receives or through the store itself: AsyncLocalStorage
// tells them apart) bypass the queue, so a transaction never waits on itself. Single statements
// that wait in the queue together commit together (statement-queue.ts: group commit).
//
// Each statement is a round trip through libuv's thread pool, and a fresh one is two (prepare, then
// run). Statements with parameters are therefore kept prepared, by their SQL text, and reused: the
// hot paths repeat a few texts thousands of times. A cached statement is always run to its end
// (`get` reads like `all` and takes the first row), so none is left mid-result holding a read
// transaction open on the connection.
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import sqlite3 from 'sqlite3';
import { StatementQueue, statementKind, type TaskKind } from './statement-queue';
import { headerProblem, isCorruptionError, setCorruptStoreAside, type StoreReset } from './store-reset';

/** Values a statement can bind. bigint is deliberately absent: store big integers as JSON text. */
export type SqlValue = string | number | null | Buffer | boolean;
export type SqlParams = readonly SqlValue[] | Readonly<Record<string, SqlValue>>;

export interface RunResult {
  changes: number;
  lastId: number;
}

/** What a caller can do with the store, inside or outside a transaction. */
export interface Queryable {
  run(sql: string, params?: SqlParams): Promise<RunResult>;
  /** The first row, or undefined. Rows are untrusted shapes: validate them where they are read. */
  get(sql: string, params?: SqlParams): Promise<Record<string, unknown> | undefined>;
  all(sql: string, params?: SqlParams): Promise<Record<string, unknown>[]>;
  /** Runs several statements separated by semicolons, without parameters. */
  exec(sql: string): Promise<void>;
}

/** A migration step: SQL text (may hold several statements) or a function for data moves. */
export type Migration = string | ((tx: Queryable) => Promise<void>);

export class StoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
  }
}

export interface StoreOptions {
  /** How long a statement waits for another process's lock before failing (SQLITE_BUSY). */
  busyTimeoutMs?: number;
}

type Task<T> = () => Promise<T>;

interface CachedStatement {
  statement: Promise<sqlite3.Statement>;
  /** Calls using the statement now. */
  users: number;
  /** Out of the cache: finalized once no call uses it. */
  retired: boolean;
}

const MODULE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
/** Prepared statements kept per store; the least recently used one is finalized beyond this. */
const STATEMENT_CACHE_SIZE = 128;
/** `run` reuses statements that write and return nothing; anything else stepped once could stay open. */
const CACHEABLE_RUN = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;
const RETURNING = /\bRETURNING\b/i;

export class Store implements Queryable {
  readonly path: string;
  private readonly db: sqlite3.Database;
  /** The statement queue (group commit of single statements waiting together). */
  private readonly queue: StatementQueue;
  private readonly inTransaction = new AsyncLocalStorage<true>();
  private closing: Promise<void> | null = null;
  /** Prepared statements by SQL text, least recently used first (a Map keeps insertion order). */
  private readonly statements = new Map<string, CachedStatement>();
  /** Finalizations under way (the connection closes after them). */
  private readonly finalizing = new Set<Promise<void>>();
  /** Set when the file found at `path` was not a sound database and was replaced by a fresh one. */
  readonly reset: StoreReset | null;

  private constructor(path: string, db: sqlite3.Database, reset: StoreReset | null) {
    this.path = path;
    this.db = db;
    this.reset = reset;
    this.queue = new StatementQueue({
      begin: () => this.rawExec('BEGIN IMMEDIATE'),
      commit: () => this.rawExec('COMMIT'),
      rollback: () => this.rawExec('ROLLBACK'),
    });
  }

  /** Groups committed and the statements they held (tests and benchmarks read it). */
  get groupStats(): { groups: number; grouped: number } {
    return { ...this.queue.stats };
  }

  /**
   * Opens (creating if needed) the store at `path`, or an in-memory one for ':memory:'. A file
   * that is not a sound database is moved aside (see store-reset.ts) and a fresh store is opened;
   * `reset` then says where the damaged file went, so the caller can tell the user.
   */
  static async open(path: string, options: StoreOptions = {}): Promise<Store> {
    const memory = path === ':memory:' || path === '';
    let reason = memory ? null : headerProblem(resolve(path));
    if (reason === null) {
      try {
        return await Store.openOnce(path, options, null);
      } catch (error) {
        if (memory || !isCorruptionError(error)) throw error;
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
        reason = cause instanceof Error ? cause.message.replace(/^SQLITE_\w+: /, '') : String(cause);
      }
    }
    const full = resolve(path);
    let corruptCopy: string;
    try {
      corruptCopy = setCorruptStoreAside(full);
    } catch (moveError) {
      const why = moveError instanceof Error ? moveError.message : String(moveError);
      throw new StoreError(`The data store at ${full} is damaged (${reason}) and could not be moved aside (${why}). Move it away by hand to start afresh.`, {
        cause: moveError,
      });
    }
    return Store.openOnce(path, options, { corruptCopy, reason });
  }

  private static async openOnce(path: string, options: StoreOptions, reset: StoreReset | null): Promise<Store> {
    const memory = path === ':memory:' || path === '';
    const full = memory ? ':memory:' : resolve(path);
    if (!memory) mkdirSync(dirname(full), { recursive: true });
    const db = await new Promise<sqlite3.Database>((ok, fail) => {
      const opened: sqlite3.Database = new sqlite3.Database(full, (error) => {
        if (error) fail(new StoreError(`Cannot open the data store at ${full}: ${error.message}`, { cause: error }));
        else ok(opened);
      });
    });
    const store = new Store(full, db, reset);
    try {
      const busy = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
      db.configure('busyTimeout', busy);
      // WAL lets readers (another Flowdeck process, a backup) proceed while we write.
      if (!memory) await store.exec('PRAGMA journal_mode = WAL');
      await store.exec(`PRAGMA busy_timeout = ${busy}; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;`);
      await store.exec(
        `CREATE TABLE IF NOT EXISTS migrations (
           module TEXT NOT NULL,
           version INTEGER NOT NULL,
           applied_at INTEGER NOT NULL,
           PRIMARY KEY (module, version)
         )`,
      );
      // Reading the schema catches a damaged file whose header still looks right.
      await store.get('SELECT count(*) AS n FROM sqlite_master');
    } catch (error) {
      await store.close();
      throw error instanceof StoreError ? error : new StoreError(`Cannot prepare the data store at ${full}: ${String(error)}`, { cause: error });
    }
    return store;
  }

  get closed(): boolean {
    return this.closing !== null;
  }

  run(sql: string, params: SqlParams = []): Promise<RunResult> {
    return this.schedule(() => this.rawRun(sql, params), statementKind(sql));
  }

  get(sql: string, params: SqlParams = []): Promise<Record<string, unknown> | undefined> {
    return this.schedule(() => this.rawGet(sql, params), statementKind(sql));
  }

  all(sql: string, params: SqlParams = []): Promise<Record<string, unknown>[]> {
    return this.schedule(() => this.rawAll(sql, params), statementKind(sql));
  }

  exec(sql: string): Promise<void> {
    return this.schedule(() => this.rawExec(sql), 'alone');
  }

  /**
   * Runs `fn` inside BEGIN IMMEDIATE ... COMMIT, alone on the connection; rolls back if `fn` throws.
   * Nested calls join the outer transaction.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    if (this.inTransaction.getStore()) return fn(this);
    return this.schedule(
      () =>
        this.inTransaction
          .run(true, async () => {
            await this.rawExec('BEGIN IMMEDIATE');
            let result: T;
            try {
              result = await fn(this);
            } catch (error) {
              await this.rawExec('ROLLBACK').catch(() => undefined);
              throw error;
            }
            await this.rawExec('COMMIT');
            return result;
          })
          .finally(() => {
            // Node 20 keeps an AsyncLocalStorage's promise hooks on once it has been entered: a
            // cost on every promise of the process (a hot folder makes ~800 per image). No other
            // transaction runs meanwhile (they queue alone), so its context is left for good here.
            this.inTransaction.disable();
          }),
      'alone',
    );
  }

  /**
   * Applies the not yet applied steps of `module`'s migrations, each in its own transaction with
   * its bookkeeping row, so a failure leaves the store at the last complete version.
   * Returns the module's version afterwards.
   */
  async migrate(module: string, steps: readonly Migration[]): Promise<number> {
    if (!MODULE_NAME.test(module)) throw new StoreError(`Invalid migration module name "${module}".`);
    const current = await this.version(module);
    if (current > steps.length) {
      throw new StoreError(
        `The data store at ${this.path} was written by a newer version of Flowdeck (${module} schema ${current}, this version knows ${steps.length}). Update Flowdeck, or move the file aside to start afresh.`,
      );
    }
    for (let index = current; index < steps.length; index += 1) {
      const step = steps[index]!;
      const version = index + 1;
      try {
        await this.transaction(async (tx) => {
          if (typeof step === 'string') await tx.exec(step);
          else await step(tx);
          await tx.run('INSERT INTO migrations (module, version, applied_at) VALUES (?, ?, ?)', [module, version, Date.now()]);
        });
      } catch (error) {
        throw new StoreError(`Migration ${module} #${version} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    }
    return steps.length;
  }

  /** The highest applied migration number of `module` (0 when none). */
  async version(module: string): Promise<number> {
    const row = await this.get('SELECT MAX(version) AS v FROM migrations WHERE module = ?', [module]);
    const v = row?.['v'];
    return typeof v === 'number' ? v : 0;
  }

  /** Waits for queued statements, then closes. Safe to call more than once. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = this.queue
      .idle()
      .then(() => this.finalizeStatements())
      .then(
        () =>
          new Promise<void>((ok, fail) => {
            this.db.close((error) => (error ? fail(new StoreError(`Closing the data store failed: ${error.message}`, { cause: error })) : ok()));
          }),
      );
    return this.closing;
  }

  private schedule<T>(task: Task<T>, kind: TaskKind): Promise<T> {
    if (this.inTransaction.getStore()) return task();
    if (this.closing) return Promise.reject(new StoreError('The data store is closed.'));
    return this.queue.push(task, kind);
  }

  private rawRun(sql: string, params: SqlParams): Promise<RunResult> {
    if (hasParams(params) && CACHEABLE_RUN.test(sql) && !RETURNING.test(sql)) {
      return this.withPrepared(
        sql,
        (statement) =>
          new Promise((ok, fail) => {
            statement.run(params, function (this: sqlite3.RunResult, error: Error | null) {
              if (error) fail(error);
              else ok({ changes: this.changes, lastId: this.lastID });
            });
          }),
      );
    }
    return new Promise((ok, fail) => {
      this.db.run(sql, params, function (this: sqlite3.RunResult, error: Error | null) {
        if (error) fail(wrap(error, sql));
        else ok({ changes: this.changes, lastId: this.lastID });
      });
    });
  }

  private async rawGet(sql: string, params: SqlParams): Promise<Record<string, unknown> | undefined> {
    if (hasParams(params)) return (await this.rawAll(sql, params))[0];
    return new Promise((ok, fail) => {
      this.db.get(sql, params, (error: Error | null, row: unknown) => {
        if (error) fail(wrap(error, sql));
        else ok(isRow(row) ? row : undefined);
      });
    });
  }

  private rawAll(sql: string, params: SqlParams): Promise<Record<string, unknown>[]> {
    if (hasParams(params)) {
      return this.withPrepared(
        sql,
        (statement) =>
          new Promise((ok, fail) => {
            statement.all(params, (error: Error | null, rows: unknown[]) => (error ? fail(error) : ok((rows ?? []).filter(isRow))));
          }),
      );
    }
    return new Promise((ok, fail) => {
      this.db.all(sql, params, (error: Error | null, rows: unknown[]) => {
        if (error) fail(wrap(error, sql));
        else ok((rows ?? []).filter(isRow));
      });
    });
  }

  /**
   * Runs `use` with the prepared statement for `sql` (from the cache, or prepared now: one round
   * trip, once). A statement is finalized only when no call is using it: when it falls out of the
   * cache, when it failed (it is prepared afresh next time), or when the store closes.
   */
  private async withPrepared<T>(sql: string, use: (statement: sqlite3.Statement) => Promise<T>): Promise<T> {
    let entry = this.statements.get(sql);
    if (entry) {
      this.statements.delete(sql);
      this.statements.set(sql, entry);
    } else {
      const statement = new Promise<sqlite3.Statement>((ok, fail) => {
        const prepared: sqlite3.Statement = this.db.prepare(sql, (error: Error | null) => (error ? fail(error) : ok(prepared)));
      });
      entry = { statement, users: 0, retired: false };
      this.statements.set(sql, entry);
      this.evictBeyondLimit();
    }
    entry.users += 1;
    try {
      return await use(await entry.statement);
    } catch (error) {
      this.retire(sql, entry);
      throw error instanceof Error ? wrap(error, sql) : error;
    } finally {
      entry.users -= 1;
      if (entry.retired && entry.users === 0) this.finalize(entry);
    }
  }

  private evictBeyondLimit(): void {
    while (this.statements.size > STATEMENT_CACHE_SIZE) {
      const [sql, entry] = this.statements.entries().next().value as [string, CachedStatement];
      this.retire(sql, entry);
    }
  }

  private retire(sql: string, entry: CachedStatement): void {
    if (this.statements.get(sql) === entry) this.statements.delete(sql);
    if (entry.retired) return;
    entry.retired = true;
    if (entry.users === 0) this.finalize(entry);
  }

  private finalize(entry: CachedStatement): void {
    const done = entry.statement.then(
      (statement) => new Promise<void>((ok) => statement.finalize(() => ok())),
      () => undefined,
    );
    this.finalizing.add(done);
    void done.then(() => this.finalizing.delete(done));
  }

  /** Finalizes every statement (the queue has drained: none is in use), so the connection can close. */
  private async finalizeStatements(): Promise<void> {
    for (const [sql, entry] of [...this.statements]) this.retire(sql, entry);
    await Promise.all([...this.finalizing]);
  }

  private rawExec(sql: string): Promise<void> {
    return new Promise((ok, fail) => {
      this.db.exec(sql, (error) => (error ? fail(wrap(error, sql)) : ok()));
    });
  }
}

function hasParams(params: SqlParams): boolean {
  return Array.isArray(params) ? params.length > 0 : Object.keys(params).length > 0;
}

function isRow(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function wrap(error: Error, sql: string): StoreError {
  const head = sql.trim().replace(/\s+/g, ' ').slice(0, 80);
  return new StoreError(`${error.message} (in: ${head})`, { cause: error });
}

// The hot-folder journal, in the app's embedded store (migrations under module 'watch'). One row
// per input CONTENT per folder (the key is the content hash, so the same bytes under two names run
// once), with its state: discovered -> uploading -> submitting (the prompt id chosen and recorded
// BEFORE it is sent) -> submitted (the server has it) -> done | failed. A second table remembers
// which path had which content at which size and modification time, so a restart or a rescan
// does not read unchanged files again. Folder configurations the app keeps live here too.
//
// Writes are batched: every write made in the same turn of the event loop goes into one
// transaction (or, for a batch of at most one upsert statement per table, plain statements), and
// each write's promise resolves once it has committed. A caller that must have a state on disk
// before acting (the prompt id before a submit) awaits the write.
import { z } from 'zod';
import type { Queryable, SqlValue, Store } from '@main/store/store';

export const WATCH_MIGRATIONS: readonly string[] = [
  `CREATE TABLE watch_folders (
     id TEXT PRIMARY KEY NOT NULL,
     config TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE TABLE watch_entries (
     folder_id TEXT NOT NULL,
     content_key TEXT NOT NULL,
     image_sha256 TEXT NOT NULL,
     mask_sha256 TEXT,
     path TEXT NOT NULL,
     rel_path TEXT NOT NULL,
     mask_path TEXT,
     state TEXT NOT NULL,
     prompt_id TEXT,
     server_kind TEXT,
     base_url TEXT,
     attempts INTEGER NOT NULL DEFAULT 0,
     reason TEXT,
     failed_phase TEXT,
     uploaded_as TEXT,
     outputs TEXT NOT NULL DEFAULT '[]',
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (folder_id, content_key)
   );
   CREATE INDEX watch_entries_state ON watch_entries (folder_id, state);
   CREATE INDEX watch_entries_prompt ON watch_entries (prompt_id);
   CREATE TABLE watch_paths (
     folder_id TEXT NOT NULL,
     path TEXT NOT NULL,
     content_key TEXT NOT NULL,
     image_sha256 TEXT NOT NULL,
     size INTEGER NOT NULL,
     mtime_ms REAL NOT NULL,
     PRIMARY KEY (folder_id, path)
   );`,
  // A folder the user paused stays paused across restarts.
  `ALTER TABLE watch_folders ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;`,
];

export const JOURNAL_STATES = ['discovered', 'uploading', 'submitting', 'submitted', 'done', 'failed'] as const;
export type JournalState = (typeof JOURNAL_STATES)[number];

/** Where a failure happened: the input itself, getting the job accepted, the job, or collecting its outputs. */
export type FailedPhase = 'input' | 'submit' | 'job' | 'collect';

export interface EntryRecord {
  folderId: string;
  contentKey: string;
  imageSha256: string;
  maskSha256: string | null;
  path: string;
  relPath: string;
  maskPath: string | null;
  state: JournalState;
  promptId: string | null;
  serverKind: 'cloud' | 'local' | null;
  baseUrl: string | null;
  attempts: number;
  reason: string | null;
  failedPhase: FailedPhase | null;
  uploadedAs: string | null;
  outputs: string[];
  createdAt: number;
  updatedAt: number;
}

/** What a file's first entry is made from: the file, its mask, and their hashes. */
export type DiscoveredFile = Pick<EntryRecord, 'folderId' | 'contentKey' | 'imageSha256' | 'maskSha256' | 'path' | 'relPath' | 'maskPath'>;

/** A file's entry as its folder first records it at `at`: discovered, nothing sent yet. */
export function discoveredEntry(file: DiscoveredFile, at: number): EntryRecord {
  return {
    ...file,
    state: 'discovered',
    promptId: null,
    serverKind: null,
    baseUrl: null,
    attempts: 0,
    reason: null,
    failedPhase: null,
    uploadedAs: null,
    outputs: [],
    createdAt: at,
    updatedAt: at,
  };
}

export interface PathRecord {
  folderId: string;
  path: string;
  contentKey: string;
  imageSha256: string;
  size: number;
  mtimeMs: number;
}

// Rows come from a file on disk: validated like any other untrusted input.
const entryRow = z.object({
  folder_id: z.string(),
  content_key: z.string(),
  image_sha256: z.string(),
  mask_sha256: z.string().nullable(),
  path: z.string(),
  rel_path: z.string(),
  mask_path: z.string().nullable(),
  state: z.enum(JOURNAL_STATES),
  prompt_id: z.string().nullable(),
  server_kind: z.enum(['cloud', 'local']).nullable(),
  base_url: z.string().nullable(),
  attempts: z.number().int(),
  reason: z.string().nullable(),
  failed_phase: z.enum(['input', 'submit', 'job', 'collect']).nullable(),
  uploaded_as: z.string().nullable(),
  outputs: z.string(),
  created_at: z.number(),
  updated_at: z.number(),
});

const pathRow = z.object({
  folder_id: z.string(),
  path: z.string(),
  content_key: z.string(),
  image_sha256: z.string(),
  size: z.number(),
  mtime_ms: z.number(),
});

const folderRow = z.object({ id: z.string(), config: z.string(), paused: z.number() });

function parseOutputs(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The prompt ids hot folders hold as unconfirmed sends: entries in state 'submitting' (the id is
 * recorded before the submit; the folder asks the server about it at its next start and sends it
 * again under the same id if the server never got it). A folder holds its sends while its entries
 * exist: an app folder until it is removed (deleteFolder drops them), a CLI folder (not in
 * watch_folders) always, as the next `flowdeck watch` of it resumes them. A store whose hot-folder
 * tables were never made holds none. Read by the job tracker, which settles every other send.
 */
export async function heldUnconfirmedSends(q: Queryable): Promise<Set<string>> {
  const table = await q.get("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'watch_entries'");
  if (!table) return new Set();
  const rows = await q.all("SELECT DISTINCT prompt_id FROM watch_entries WHERE state = 'submitting' AND prompt_id IS NOT NULL");
  return new Set(rows.map((row) => row['prompt_id']).filter((id): id is string => typeof id === 'string'));
}

type UpsertTable = 'watch_entries' | 'watch_paths';

/** A write: an upsert of one row (merged with its neighbours into multi-row statements), or any statement. */
type Write = { table: UpsertTable; key: string; row: SqlValue[] } | ((tx: Queryable) => Promise<unknown>);

const ENTRY_COLUMNS = [
  'folder_id',
  'content_key',
  'image_sha256',
  'mask_sha256',
  'path',
  'rel_path',
  'mask_path',
  'state',
  'prompt_id',
  'server_kind',
  'base_url',
  'attempts',
  'reason',
  'failed_phase',
  'uploaded_as',
  'outputs',
  'created_at',
  'updated_at',
];
const PATH_COLUMNS = ['folder_id', 'path', 'content_key', 'image_sha256', 'size', 'mtime_ms'];
const COLUMNS = { watch_entries: ENTRY_COLUMNS, watch_paths: PATH_COLUMNS } as const;
/** How long a deferred write waits for a write to ride along with before it is written on its own. */
const DEFER_MS = 200;
/** Rows per statement: well under SQLite's oldest parameter limit (999). */
const ROWS_PER_STATEMENT = 40;

/**
 * Runs a batch in order. Between two other statements, the upserts of each table become one
 * statement per ROWS_PER_STATEMENT rows: each upsert writes a whole row, rows of the two tables do
 * not depend on each other, and the last write of a row wins, so only the order of a row's own
 * writes (kept) and of upserts against other statements (kept) matters.
 */
async function runWrites(tx: Queryable, writes: readonly Write[]): Promise<void> {
  let pending = { watch_entries: new Map<string, SqlValue[]>(), watch_paths: new Map<string, SqlValue[]>() };
  const flush = async (): Promise<void> => {
    for (const table of ['watch_entries', 'watch_paths'] as const) {
      const columns = COLUMNS[table];
      const rows = [...pending[table].values()];
      for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
        const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
        const placeholders = chunk.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
        await tx.run(`INSERT OR REPLACE INTO ${table} (${columns.join(', ')}) VALUES ${placeholders}`, chunk.flat());
      }
    }
    pending = { watch_entries: new Map(), watch_paths: new Map() };
  };
  for (const write of writes) {
    if (typeof write === 'function') {
      await flush();
      await write(tx);
      continue;
    }
    const rows = pending[write.table];
    rows.delete(write.key); // the last write of a row wins
    rows.set(write.key, write.row);
  }
  await flush();
}

/**
 * Whether a batch can run without a transaction: upserts only, at most one statement per table.
 * SQLite makes each statement atomic by itself and every upsert writes a whole row as it is now,
 * so nothing depends on the (at most two) statements landing together (a path record is only a
 * shortcut that saves hashing an unchanged file again); BEGIN IMMEDIATE / COMMIT would be two more
 * round trips on the store's one connection.
 */
function needsNoTransaction(writes: readonly Write[]): boolean {
  const keys: Record<UpsertTable, Set<string>> = { watch_entries: new Set(), watch_paths: new Set() };
  for (const write of writes) {
    if (typeof write === 'function') return false;
    keys[write.table].add(write.key);
  }
  return keys.watch_entries.size <= ROWS_PER_STATEMENT && keys.watch_paths.size <= ROWS_PER_STATEMENT;
}

export class WatchJournal {
  private batch: { writes: Write[]; done: Promise<void> } | null = null;
  private chain: Promise<void> = Promise.resolve();
  /** Deferred writes waiting for the next batch (see saveEntry). */
  private deferred: Write[] = [];
  private deferTimer: ReturnType<typeof setTimeout> | null = null;
  /** Rows that failed validation while loading (a damaged or foreign row is skipped, not fatal). */
  skippedRows = 0;

  private constructor(private readonly store: Store) {}

  static async open(store: Store): Promise<WatchJournal> {
    await store.migrate('watch', WATCH_MIGRATIONS);
    return new WatchJournal(store);
  }

  // ---- folders ----------------------------------------------------------------------------------

  saveFolder(id: string, configText: string, now: number, paused?: boolean): Promise<void> {
    return this.enqueue(async (tx) => {
      await tx.run(
        `INSERT INTO watch_folders (id, config, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at`,
        [id, configText, now, now],
      );
      if (paused !== undefined) await tx.run('UPDATE watch_folders SET paused = ? WHERE id = ?', [paused ? 1 : 0, id]);
    });
  }

  setFolderPaused(id: string, paused: boolean): Promise<void> {
    return this.enqueue((tx) => tx.run('UPDATE watch_folders SET paused = ? WHERE id = ?', [paused ? 1 : 0, id]));
  }

  async listFolders(): Promise<{ id: string; config: string; paused: boolean }[]> {
    await this.flushed();
    const rows = await this.store.all('SELECT id, config, paused FROM watch_folders ORDER BY created_at');
    const out: { id: string; config: string; paused: boolean }[] = [];
    for (const row of rows) {
      const parsed = folderRow.safeParse(row);
      if (parsed.success) out.push({ id: parsed.data.id, config: parsed.data.config, paused: parsed.data.paused === 1 });
      else this.skippedRows += 1;
    }
    return out;
  }

  /**
   * Removes a folder's configuration and everything the journal knows about its files. Returns the
   * prompt ids of its entries not done: their jobs may still be in flight, or may have ended without
   * the folder taking their outputs, and now nobody collects them for the folder. A done entry's
   * outputs are in the folder and the library already.
   */
  async deleteFolder(id: string): Promise<string[]> {
    const { entries } = await this.load(id);
    await this.enqueue(async (tx) => {
      await tx.run('DELETE FROM watch_folders WHERE id = ?', [id]);
      await tx.run('DELETE FROM watch_entries WHERE folder_id = ?', [id]);
      await tx.run('DELETE FROM watch_paths WHERE folder_id = ?', [id]);
    });
    return entries.flatMap((e) => (e.promptId !== null && e.state !== 'done' ? [e.promptId] : []));
  }

  // ---- entries and paths ------------------------------------------------------------------------

  async load(folderId: string): Promise<{ entries: EntryRecord[]; paths: PathRecord[] }> {
    await this.flushed();
    const entries: EntryRecord[] = [];
    for (const row of await this.store.all('SELECT * FROM watch_entries WHERE folder_id = ? ORDER BY created_at', [folderId])) {
      const parsed = entryRow.safeParse(row);
      if (!parsed.success) {
        this.skippedRows += 1;
        continue;
      }
      const r = parsed.data;
      entries.push({
        folderId: r.folder_id,
        contentKey: r.content_key,
        imageSha256: r.image_sha256,
        maskSha256: r.mask_sha256,
        path: r.path,
        relPath: r.rel_path,
        maskPath: r.mask_path,
        state: r.state,
        promptId: r.prompt_id,
        serverKind: r.server_kind,
        baseUrl: r.base_url,
        attempts: r.attempts,
        reason: r.reason,
        failedPhase: r.failed_phase,
        uploadedAs: r.uploaded_as,
        outputs: parseOutputs(r.outputs),
        createdAt: r.created_at,
        updatedAt: r.updated_at,
      });
    }
    const paths: PathRecord[] = [];
    for (const row of await this.store.all('SELECT * FROM watch_paths WHERE folder_id = ?', [folderId])) {
      const parsed = pathRow.safeParse(row);
      if (!parsed.success) {
        this.skippedRows += 1;
        continue;
      }
      const r = parsed.data;
      paths.push({ folderId: r.folder_id, path: r.path, contentKey: r.content_key, imageSha256: r.image_sha256, size: r.size, mtimeMs: r.mtime_ms });
    }
    return { entries, paths };
  }

  /** How many entries of a folder are in each state (a folder's counters while it is not running). */
  async stateCounts(folderId: string): Promise<Partial<Record<JournalState, number>>> {
    await this.flushed();
    const counts: Partial<Record<JournalState, number>> = {};
    for (const row of await this.store.all('SELECT state, COUNT(*) AS n FROM watch_entries WHERE folder_id = ? GROUP BY state', [folderId])) {
      const state = z.enum(JOURNAL_STATES).safeParse(row['state']);
      if (state.success && typeof row['n'] === 'number') counts[state.data] = row['n'];
    }
    return counts;
  }

  /**
   * Writes the entry's whole row (a snapshot is taken now, so later changes to `entry` do not leak in).
   * `deferred`: a state nothing depends on being on disk (see EntryBook.setState); it resolves at
   * once and rides along with the next write (the row's later write then replaces it in the same
   * statement), or is written on its own after DEFER_MS.
   */
  saveEntry(e: EntryRecord, options: { deferred?: boolean } = {}): Promise<void> {
    const write = this.entryWrite(e);
    if (options.deferred) {
      this.defer(write);
      return Promise.resolve();
    }
    return this.enqueue(write);
  }

  private entryWrite(e: EntryRecord): Write {
    return {
      table: 'watch_entries',
      key: `${e.folderId}\u0000${e.contentKey}`,
      row: [
        e.folderId,
        e.contentKey,
        e.imageSha256,
        e.maskSha256,
        e.path,
        e.relPath,
        e.maskPath,
        e.state,
        e.promptId,
        e.serverKind,
        e.baseUrl,
        e.attempts,
        e.reason,
        e.failedPhase,
        e.uploadedAs,
        JSON.stringify(e.outputs),
        e.createdAt,
        e.updatedAt,
      ],
    };
  }

  deleteEntry(folderId: string, contentKey: string): Promise<void> {
    return this.enqueue(async (tx) => {
      await tx.run('DELETE FROM watch_entries WHERE folder_id = ? AND content_key = ?', [folderId, contentKey]);
      await tx.run('DELETE FROM watch_paths WHERE folder_id = ? AND content_key = ?', [folderId, contentKey]);
    });
  }

  savePath(r: PathRecord): Promise<void> {
    return this.enqueue({
      table: 'watch_paths',
      key: `${r.folderId}\u0000${r.path}`,
      row: [r.folderId, r.path, r.contentKey, r.imageSha256, r.size, r.mtimeMs],
    });
  }

  deletePath(folderId: string, path: string): Promise<void> {
    return this.enqueue((tx) => tx.run('DELETE FROM watch_paths WHERE folder_id = ? AND path = ?', [folderId, path]));
  }

  /** Resolves once every write made so far (deferred ones too) has committed. */
  flushed(): Promise<void> {
    if (this.deferred.length > 0) return this.enqueueDeferred();
    return this.batch ? this.batch.done : this.chain;
  }

  private defer(write: Write): void {
    // A batch still gathering writes takes it at once: it commits anyway.
    if (this.batch) {
      this.batch.writes.push(write);
      return;
    }
    this.deferred.push(write);
    this.deferTimer ??= setTimeout(() => {
      this.deferTimer = null;
      if (this.deferred.length > 0) void this.enqueueDeferred();
    }, DEFER_MS);
    // Nothing may wait on a deferred write: it does not keep the process alive.
    this.deferTimer.unref();
  }

  /** Starts a batch of the deferred writes (nobody awaits them: a failure reaches only flushed()'s caller). */
  private enqueueDeferred(): Promise<void> {
    const done = this.enqueue(null);
    done.catch(() => undefined);
    return done;
  }

  /** Adds `write` to the batch gathering now, or starts one (deferred writes are never pending while a batch gathers). */
  private enqueue(write: Write | null): Promise<void> {
    if (!this.batch) {
      // Deferred writes go first: a later write of the same row replaces them (runWrites keeps the last).
      const writes: Write[] = this.deferred;
      this.deferred = [];
      if (this.deferTimer) clearTimeout(this.deferTimer);
      this.deferTimer = null;
      // The batch commits after the writes of this turn have joined it, and after the previous batch.
      const done = this.chain.then(
        () =>
          new Promise<void>((resolve, reject) => {
            setImmediate(() => {
              if (this.batch?.writes === writes) this.batch = null;
              (needsNoTransaction(writes) ? runWrites(this.store, writes) : this.store.transaction((tx) => runWrites(tx, writes))).then(resolve, reject);
            });
          }),
      );
      this.batch = { writes, done };
      this.chain = done.catch(() => undefined);
    }
    if (write) this.batch.writes.push(write);
    return this.batch.done;
  }
}

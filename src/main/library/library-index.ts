// The library's index in the shared SQLite store: inserting items, listing them by type, date,
// workflow and server, full-text search, and the download bookkeeping (status, attempts, retry
// time). SQL lives here only; the Library class decides what to do, this says how it is stored.
import { isJsonObject, parseJsonExact, stringifyJsonExact } from '@shared/json';
import type { Queryable, SqlValue, Store } from '@main/store/store';
import type { Workflow } from '@main/service/types';
import { ID_BLOCK_BITS, LIBRARY_MIGRATIONS, LIBRARY_MODULE } from './schema';
import { ITEM_COLUMNS, parseItemRow, type ItemRow } from './rows';
import { expandedMatch, MAX_QUERY_TERMS, queryWords, workflowCondition } from './search-match';
import type { ItemStatus, ListFilter, MediaKind } from './types';

export const MAX_LIMIT = 10_000;
const DEFAULT_LIMIT = 100;
/** Rows per INSERT statement: 20 parameters each, far below SQLite's limit of 32766. */
const INSERT_CHUNK = 100;

export interface NewItemRow {
  promptId: string;
  profileId: string | null;
  serverKind: 'cloud' | 'local';
  baseUrl: string;
  workflow: Workflow | null;
  workflowName: string | null;
  nodeId: string;
  nodeClass: string | null;
  outputKey: string;
  fileName: string;
  fileSubfolder: string;
  fileType: string;
  mediaKind: MediaKind;
  inputs: string;
  inputText: string;
  promptText: string;
  createdAt: number;
  recordedAt: number;
  status: ItemStatus;
  /** The input file the output was made from (a hot folder's); null or absent: none. */
  sourceFile?: string | null;
}

/** What a finished download sets on its row. */
export interface DoneFields {
  sha256: string;
  /** The library folder the file is in, and its path relative to it. */
  root: string;
  path: string;
  size: number;
  mime: string | null;
  mediaKind: MediaKind;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  completedAt: number;
}

function epoch(value: number | Date | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : value;
  return Number.isFinite(ms) ? ms : undefined;
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIMIT;
  return Math.max(0, Math.min(MAX_LIMIT, Math.floor(limit)));
}

function clampOffset(offset: number | undefined): number {
  return offset === undefined || !Number.isFinite(offset) ? 0 : Math.max(0, Math.floor(offset));
}

/** The text columns a search looks in, over the items table aliased `i` (the FTS index's columns). */
const TEXT_COLUMNS = ['i.workflow_name', 'i.prompt_text', 'i.node_class', 'i.file_name', 'i.input_text', 'i.source_file'];

/**
 * A query with no word at all (only symbols or emoji: "🌅", "#", "++") has nothing for the FTS
 * index, which drops such characters. Each whitespace-separated piece must then appear as is in one
 * of the text columns; a blank query has no piece. A scan rather than an index walk, which is fine
 * for these rare queries.
 */
export function symbolNeedles(text: string): string[] {
  return [
    ...new Set(
      text
        .normalize('NFKC')
        .split(/\s+/u)
        .filter((piece) => piece !== ''),
    ),
  ].slice(0, MAX_QUERY_TERMS);
}

function needleClauses(needles: readonly string[]): { where: string[]; params: SqlValue[] } {
  const where = needles.map(() => `(${TEXT_COLUMNS.map((c) => `instr(COALESCE(${c}, ''), ?) > 0`).join(' OR ')})`);
  return { where, params: needles.flatMap((n) => TEXT_COLUMNS.map(() => n)) };
}

/** WHERE clauses and parameters for a filter, over the items table aliased `i`. */
function filterClauses(filter: ListFilter): { where: string[]; params: SqlValue[] } {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (filter.type !== undefined) {
    where.push('i.media_kind = ?');
    params.push(filter.type);
  }
  const since = epoch(filter.since);
  if (since !== undefined) {
    where.push('i.created_at >= ?');
    params.push(since);
  }
  const until = epoch(filter.until);
  if (until !== undefined) {
    where.push('i.created_at < ?');
    params.push(until);
  }
  if (filter.workflow !== undefined) {
    where.push('i.workflow_name = ? COLLATE NOCASE');
    params.push(filter.workflow);
  }
  if (filter.server !== undefined) {
    where.push('(i.profile_id = ? OR i.base_url = ?)');
    params.push(filter.server, filter.server.replace(/\/+$/, ''));
  }
  if (filter.promptId !== undefined) {
    where.push('i.prompt_id = ?');
    params.push(filter.promptId);
  }
  if (filter.status !== undefined) {
    const statuses: readonly ItemStatus[] = typeof filter.status === 'string' ? [filter.status] : filter.status;
    if (statuses.length === 0) where.push('0');
    else {
      where.push(`i.status IN (${statuses.map(() => '?').join(', ')})`);
      params.push(...statuses);
    }
  }
  return { where, params };
}

function rowsOf(raw: Record<string, unknown>[]): ItemRow[] {
  return raw.map(parseItemRow).filter((r): r is ItemRow => r !== null);
}

const MARK_DONE = `UPDATE library_items SET status = 'done', sha256 = ?, root = ?, path = ?, size = ?, mime = ?, media_kind = ?, width = ?, height = ?,
   duration_ms = ?, completed_at = ?, last_error = NULL, retry_at = NULL`;

function doneParams(f: DoneFields): SqlValue[] {
  return [f.sha256, f.root, f.path, f.size, f.mime, f.mediaKind, f.width, f.height, f.durationMs, f.completedAt];
}

const SELECT_ITEMS = ITEM_COLUMNS.split(', ')
  .map((c) => `i.${c}`)
  .join(', ');

export class LibraryIndex {
  private constructor(private readonly store: Store) {}

  static async open(store: Store): Promise<LibraryIndex> {
    await store.migrate(LIBRARY_MODULE, LIBRARY_MIGRATIONS);
    return new LibraryIndex(store);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.store.transaction(fn);
  }

  /**
   * One statement on its own: SQLite makes a single statement atomic by itself, so it needs no
   * BEGIN IMMEDIATE / COMMIT (two more round trips on the store's one connection, and a write lock
   * taken even for a read).
   */
  single<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return fn(this.store);
  }

  /** Inserts a row unless the same file of the same job is indexed already; returns the row's id. */
  async insert(row: NewItemRow, q: Queryable = this.store): Promise<{ id: number; inserted: boolean }> {
    const [result] = await this.insertMany([row], q);
    if (!result) throw new Error(`library: the row for ${row.fileName} of job ${row.promptId} could not be recorded.`);
    return result;
  }

  /**
   * Inserts rows in multi-row statements (one round trip per INSERT_CHUNK rows: the statement
   * queue, not SQLite, is what costs per row); rows already indexed are kept as they are.
   * Returns each row's id, in order, and whether it is new.
   */
  async insertMany(rows: readonly NewItemRow[], q: Queryable = this.store): Promise<{ id: number; inserted: boolean }[]> {
    const ids = new Map<string, { id: number; inserted: boolean }>();
    const keyOf = (r: { baseUrl: string; promptId: string; fileType: string; fileSubfolder: string; fileName: string }): string =>
      JSON.stringify([r.baseUrl, r.promptId, r.fileType, r.fileSubfolder, r.fileName]);
    for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
      const chunk = rows.slice(start, start + INSERT_CHUNK);
      const params: SqlValue[] = [];
      for (const row of chunk) {
        params.push(
          row.promptId,
          row.profileId,
          row.serverKind,
          row.baseUrl,
          row.workflow ? stringifyJsonExact(row.workflow) : null,
          row.workflowName,
          row.nodeId,
          row.nodeClass,
          row.outputKey,
          row.fileName,
          row.fileSubfolder,
          row.fileType,
          row.mediaKind,
          row.inputs,
          row.inputText,
          row.promptText,
          row.createdAt,
          row.recordedAt,
          row.status,
          row.sourceFile ?? null,
        );
      }
      const values = chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
      const inserted = await q.all(
        `INSERT INTO library_items (prompt_id, profile_id, server_kind, base_url, workflow, workflow_name, node_id, node_class,
           output_key, file_name, file_subfolder, file_type, media_kind, inputs, input_text, prompt_text, created_at, recorded_at, status,
           source_file)
         VALUES ${values}
         ON CONFLICT (base_url, prompt_id, file_type, file_subfolder, file_name) DO NOTHING
         RETURNING id, base_url, prompt_id, file_type, file_subfolder, file_name`,
        params,
      );
      for (const r of inserted) {
        if (typeof r['id'] !== 'number') continue;
        ids.set(
          keyOf({
            baseUrl: String(r['base_url']),
            promptId: String(r['prompt_id']),
            fileType: String(r['file_type']),
            fileSubfolder: String(r['file_subfolder']),
            fileName: String(r['file_name']),
          }),
          { id: r['id'], inserted: true },
        );
      }
    }
    const out: { id: number; inserted: boolean }[] = [];
    for (const row of rows) {
      const key = keyOf(row);
      let found = ids.get(key);
      if (!found) {
        const existing = await q.get(
          'SELECT id FROM library_items WHERE base_url = ? AND prompt_id = ? AND file_type = ? AND file_subfolder = ? AND file_name = ?',
          [row.baseUrl, row.promptId, row.fileType, row.fileSubfolder, row.fileName],
        );
        const id = existing?.['id'];
        if (typeof id !== 'number') throw new Error(`library: the row for ${row.fileName} of job ${row.promptId} vanished while being recorded.`);
        found = { id, inserted: false };
        ids.set(key, found);
      }
      out.push(found);
    }
    return out;
  }

  async get(id: number): Promise<ItemRow | null> {
    const raw = await this.store.get(`SELECT ${SELECT_ITEMS} FROM library_items i WHERE i.id = ?`, [id]);
    return raw ? parseItemRow(raw) : null;
  }

  async getMany(ids: readonly number[]): Promise<ItemRow[]> {
    if (ids.length === 0) return [];
    const raw = await this.store.all(`SELECT ${SELECT_ITEMS} FROM library_items i WHERE i.id IN (${ids.map(() => '?').join(', ')})`, [...ids]);
    return rowsOf(raw);
  }

  /** The workflow recorded with an item (kept apart from the item: it can be large). */
  async workflowOf(id: number): Promise<Workflow | null> {
    const raw = await this.store.get('SELECT workflow FROM library_items WHERE id = ?', [id]);
    const text = raw?.['workflow'];
    if (typeof text !== 'string') return null;
    try {
      const value = parseJsonExact(text);
      return isJsonObject(value) ? value : null;
    } catch {
      return null;
    }
  }

  /** Newest first (by the job's creation time). */
  async list(filter: ListFilter = {}): Promise<ItemRow[]> {
    const { where, params } = filterClauses(filter);
    const sql = `SELECT ${SELECT_ITEMS} FROM library_items i ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY i.created_at DESC, i.id DESC LIMIT ? OFFSET ?`;
    return rowsOf(await this.store.all(sql, [...params, clampLimit(filter.limit), clampOffset(filter.offset)]));
  }

  async count(filter: ListFilter = {}): Promise<number> {
    const { where, params } = filterClauses(filter);
    const raw = await this.store.get(`SELECT COUNT(*) AS n FROM library_items i ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`, params);
    const n = raw?.['n'];
    return typeof n === 'number' ? n : 0;
  }

  /**
   * Full-text search over workflow name, prompt text, node class, the server's file name and the
   * other input values, combined with the list filters. Newest recorded first: walking the FTS
   * index by rowid lets SQLite stop after `limit` matches instead of sorting every match.
   */
  async search(text: string, filter: ListFilter = {}): Promise<ItemRow[]> {
    const words = queryWords(text);
    if (words.length === 0) return this.searchSymbols(symbolNeedles(text), filter);
    const match = await this.matchOf(words, filter);
    if (match === null) return [];
    const { where, params } = filterClauses(filter);
    const since = epoch(filter.since);
    const until = epoch(filter.until);
    if (since !== undefined || until !== undefined) {
      // The newest-first walk of a common word would pass every newer match before reaching an
      // old date range: bound it by the id blocks that can hold rows of the range, so FTS5 seeks
      // straight there (a scan of ~n/1024 block rows, not of the items).
      const bounds = await this.store.get('SELECT MIN(block) AS lo, MAX(block) AS hi FROM library_id_blocks WHERE max_created >= ? AND min_created < ?', [
        since ?? Number.MIN_SAFE_INTEGER,
        until ?? Number.MAX_SAFE_INTEGER,
      ]);
      const loBlock = bounds?.['lo'];
      const hiBlock = bounds?.['hi'];
      if (typeof loBlock !== 'number' || typeof hiBlock !== 'number') return [];
      const lo = loBlock * 2 ** ID_BLOCK_BITS;
      const hi = (hiBlock + 1) * 2 ** ID_BLOCK_BITS - 1;
      where.push('f.rowid BETWEEN ? AND ?');
      params.push(lo, hi);
    }
    // CROSS JOIN keeps the FTS index as the outer loop (SQLite never reorders it): matches come
    // newest first and the scan stops at `limit`. Left to itself, the planner may walk a filter's
    // index and probe the FTS index once per row, which is thousands of times slower.
    const sql = `SELECT ${SELECT_ITEMS} FROM library_fts f CROSS JOIN library_items i ON i.id = f.rowid
       WHERE library_fts MATCH ? ${where.length ? `AND ${where.join(' AND ')}` : ''}
       ORDER BY f.rowid DESC LIMIT ? OFFSET ?`;
    return rowsOf(await this.store.all(sql, [match, ...params, clampLimit(filter.limit), clampOffset(filter.offset)]));
  }

  /** How many items a search finds within the filters (the total behind a paged result). */
  async searchCount(text: string, filter: ListFilter = {}): Promise<number> {
    const words = queryWords(text);
    if (words.length === 0) return this.countSymbols(symbolNeedles(text), filter);
    const match = await this.matchOf(words, filter);
    if (match === null) return 0;
    const { where, params } = filterClauses(filter);
    const raw = await this.store.get(
      `SELECT COUNT(*) AS n FROM library_fts f CROSS JOIN library_items i ON i.id = f.rowid
       WHERE library_fts MATCH ? ${where.length ? `AND ${where.join(' AND ')}` : ''}`,
      [match, ...params],
    );
    const n = raw?.['n'];
    return typeof n === 'number' ? n : 0;
  }

  /** The MATCH expression of a search's words within a filter (search-match.ts); null: nothing matches. */
  private async matchOf(words: readonly string[], filter: ListFilter): Promise<string | null> {
    const match = await expandedMatch(this.store, words);
    const workflow = workflowCondition(filter.workflow);
    return match === null || workflow === null ? match : `${match} AND ${workflow}`;
  }

  /** Items holding every needle in a text column (see symbolNeedles); no needle: list(). */
  private async searchSymbols(needles: readonly string[], filter: ListFilter): Promise<ItemRow[]> {
    if (needles.length === 0) return this.list(filter);
    const f = filterClauses(filter);
    const n = needleClauses(needles);
    const sql = `SELECT ${SELECT_ITEMS} FROM library_items i WHERE ${[...f.where, ...n.where].join(' AND ')}
       ORDER BY i.created_at DESC, i.id DESC LIMIT ? OFFSET ?`;
    return rowsOf(await this.store.all(sql, [...f.params, ...n.params, clampLimit(filter.limit), clampOffset(filter.offset)]));
  }

  private async countSymbols(needles: readonly string[], filter: ListFilter): Promise<number> {
    if (needles.length === 0) return this.count(filter);
    const f = filterClauses(filter);
    const n = needleClauses(needles);
    const raw = await this.store.get(`SELECT COUNT(*) AS n FROM library_items i WHERE ${[...f.where, ...n.where].join(' AND ')}`, [...f.params, ...n.params]);
    const count = raw?.['n'];
    return typeof count === 'number' ? count : 0;
  }

  /**
   * The servers items came from, with their counts (for a filter menu): grouped by profile id,
   * else by base URL (what the `server` filter takes), newest first. `baseUrl` is the latest one
   * seen (a demo profile's address changes from run to run).
   */
  async servers(): Promise<{ server: string; profileId: string | null; baseUrl: string; count: number }[]> {
    // With exactly one max() in the query, SQLite takes the bare columns (base_url) from the row
    // holding that maximum: the latest recorded item of each group.
    const raw = await this.store.all(
      `SELECT COALESCE(profile_id, base_url) AS server, profile_id AS profileId, base_url AS baseUrl, COUNT(*) AS count, MAX(id) AS latest
       FROM library_items GROUP BY COALESCE(profile_id, base_url) ORDER BY latest DESC LIMIT 1000`,
    );
    return raw.flatMap((r) =>
      typeof r['server'] === 'string' && typeof r['baseUrl'] === 'string' && typeof r['count'] === 'number'
        ? [{ server: r['server'], profileId: typeof r['profileId'] === 'string' ? r['profileId'] : null, baseUrl: r['baseUrl'], count: r['count'] }]
        : [],
    );
  }

  /** Distinct workflow names with their item counts (for a filter menu). */
  async workflows(): Promise<{ name: string; count: number }[]> {
    const raw = await this.store.all(
      `SELECT workflow_name AS name, COUNT(*) AS count FROM library_items WHERE workflow_name IS NOT NULL
       GROUP BY workflow_name COLLATE NOCASE ORDER BY MAX(created_at) DESC LIMIT 1000`,
    );
    return raw.flatMap((r) => (typeof r['name'] === 'string' && typeof r['count'] === 'number' ? [{ name: r['name'], count: r['count'] }] : []));
  }

  /** Rows whose file is not in the library yet (pending, downloading, failed), oldest first. */
  async unfinished(): Promise<ItemRow[]> {
    return rowsOf(await this.store.all(`SELECT ${SELECT_ITEMS} FROM library_items i WHERE i.status != 'done' ORDER BY i.id ASC`));
  }

  /** Marks an attempt as started: counts it. False when the row is gone (deleted meanwhile). */
  async markDownloading(id: number): Promise<boolean> {
    const result = await this.store.run(`UPDATE library_items SET status = 'downloading', attempts = attempts + 1, retry_at = NULL WHERE id = ?`, [id]);
    return result.changes > 0;
  }

  async markPending(id: number, error: string | null = null): Promise<void> {
    await this.store.run(
      `UPDATE library_items SET status = 'pending', retry_at = NULL, last_error = COALESCE(?, last_error) WHERE id = ? AND status != 'done'`,
      [error, id],
    );
  }

  /** An attempt that was stopped on purpose or had no client: back to pending, not counted. */
  async uncountAttempt(id: number, error: string | null): Promise<void> {
    await this.store.run(
      `UPDATE library_items SET status = 'pending', attempts = MAX(0, attempts - 1), retry_at = NULL, last_error = COALESCE(?, last_error)
       WHERE id = ? AND status != 'done'`,
      [error, id],
    );
  }

  async markFailed(id: number, error: string, retryAt: number | null): Promise<void> {
    await this.store.run(`UPDATE library_items SET status = 'failed', last_error = ?, retry_at = ? WHERE id = ? AND status != 'done'`, [error, retryAt, id]);
  }

  /** Puts a given-up item back in line, with a fresh count of attempts. */
  async requeue(id: number): Promise<boolean> {
    const result = await this.store.run(`UPDATE library_items SET status = 'pending', attempts = 0, retry_at = NULL WHERE id = ? AND status != 'done'`, [id]);
    return result.changes > 0;
  }

  async markDone(id: number, fields: DoneFields, q: Queryable = this.store): Promise<boolean> {
    const result = await q.run(`${MARK_DONE} WHERE id = ?`, [...doneParams(fields), id]);
    return result.changes > 0;
  }

  /** markDone, answering the row as it is now (null: no such row) from the same statement. */
  async markDoneReturning(id: number, fields: DoneFields, q: Queryable = this.store): Promise<ItemRow | null> {
    const raw = await q.all(`${MARK_DONE} WHERE id = ? RETURNING ${ITEM_COLUMNS}`, [...doneParams(fields), id]);
    return raw[0] ? parseItemRow(raw[0]) : null;
  }

  /** The relative path of a finished file with these bytes in the library folder `root`, if any. */
  async pathForHash(sha256: string, root: string, q: Queryable = this.store): Promise<string | null> {
    const raw = await q.get(
      `SELECT path FROM library_items WHERE sha256 = ? AND status = 'done' AND path IS NOT NULL AND (root = ? OR root IS NULL) ORDER BY id ASC LIMIT 1`,
      [sha256, root],
    );
    const path = raw?.['path'];
    return typeof path === 'string' ? path : null;
  }

  /** How many finished rows share a file (rows without a folder count as the current one's). */
  async pathReferences(root: string | null, path: string, currentRoot: string, q: Queryable = this.store): Promise<number> {
    const folder = root ?? currentRoot;
    const raw = await q.get(`SELECT COUNT(*) AS n FROM library_items WHERE path = ? AND status = 'done' AND COALESCE(root, ?) = ?`, [
      path,
      currentRoot,
      folder,
    ]);
    const n = raw?.['n'];
    return typeof n === 'number' ? n : 0;
  }

  async remove(id: number, q: Queryable = this.store): Promise<boolean> {
    const result = await q.run('DELETE FROM library_items WHERE id = ?', [id]);
    return result.changes > 0;
  }
}

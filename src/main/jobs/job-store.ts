// The job journal: every job this app sent (or was about to send), so that a restart can find
// each one again and settle it with the server's real outcome. Workflows are written with
// stringifyJsonExact so a 64-bit seed comes back exactly as it went in.
import { z } from 'zod';
import { isJsonObject, parseJsonExact, stringifyJsonExact } from '@shared/json';
import type { OutputFile, ServerKind, Workflow } from '@main/service/types';
import type { Queryable, SqlValue, Store } from '@main/store/store';
import { isTerminalPhase, type JobErrorInfo, type JobOrigin, type ProgressSummary, type StoredPhase } from './types';

export const JOBS_MIGRATIONS: readonly string[] = [
  `CREATE TABLE jobs (
     prompt_id TEXT PRIMARY KEY NOT NULL,
     profile_id TEXT,
     server_kind TEXT NOT NULL,
     base_url TEXT NOT NULL,
     client_id TEXT,
     workflow TEXT,
     workflow_name TEXT,
     phase TEXT NOT NULL,
     raw_status TEXT,
     number INTEGER,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     ended_at INTEGER,
     error TEXT,
     outputs TEXT NOT NULL DEFAULT '[]',
     progress TEXT
   );
   CREATE INDEX jobs_phase ON jobs (phase);
   CREATE INDEX jobs_created ON jobs (created_at DESC);`,
  // Where each job was started (window, cli, hot-folder); NULL for jobs journaled before.
  `ALTER TABLE jobs ADD COLUMN origin TEXT;`,
  // 1: a hot folder's job whose folder was removed while it was in flight: nobody will import its
  // outputs from the folder's side, so the library records them (output-route.ts).
  `ALTER TABLE jobs ADD COLUMN library_takes_outputs INTEGER NOT NULL DEFAULT 0;`,
];

export interface JobRecord {
  promptId: string;
  profileId: string | null;
  serverKind: ServerKind;
  baseUrl: string;
  clientId: string | null;
  workflow: Workflow | null;
  workflowName: string | null;
  phase: StoredPhase;
  rawStatus: string | null;
  number: number | null;
  createdAt: number;
  updatedAt: number;
  endedAt: number | null;
  error: JobErrorInfo | null;
  outputs: OutputFile[];
  progress: ProgressSummary | null;
  origin: JobOrigin | null;
  /** Its hot folder is gone: the library records its outputs (handOverToLibrary). */
  libraryTakesOutputs: boolean;
}

export interface NewJob {
  promptId: string;
  profileId?: string | null;
  serverKind: ServerKind;
  baseUrl: string;
  clientId?: string | null;
  workflow?: Workflow | null;
  workflowName?: string | null;
  /** Queue number from the submit answer, when known. */
  number?: number | null;
  origin?: JobOrigin | null;
}

/**
 * The jobs recorded (and not removed) through any JobStore over a store, in this process: "record
 * if absent" need not ask the store about them (the app and `flowdeck watch` open one JobStore
 * for submitting and another for the tracker). Bounded; an id that fell out is asked about again.
 */
const RECORDED_BY_STORE = new WeakMap<Store, Set<string>>();
const RECORDED_IDS_KEPT = 10_000;
/** The sends under way in this process, over any JobStore of a store (see JobStore.whileSending). */
const SENDING_BY_STORE = new WeakMap<Store, Set<string>>();

/** The row's outputs list when it is a JSON array, else an empty one (CASE: json_type fails on invalid JSON). */
const LIST_OR_EMPTY = "CASE WHEN json_valid(jobs.outputs) THEN CASE json_type(jobs.outputs) WHEN 'array' THEN jobs.outputs ELSE '[]' END ELSE '[]' END";

/** How a job's end is written (recordEnd): phase, the server's word, times, progress and error. */
const END_SET = `UPDATE jobs SET phase = ?, raw_status = COALESCE(?, raw_status), updated_at = ?,
   ended_at = CASE WHEN ? THEN COALESCE(ended_at, ?) ELSE NULL END,
   progress = COALESCE(?, progress), error = ?`;

/** An output as the jobs table lists it. */
const outputEntry = (o: OutputFile): string => JSON.stringify({ filename: o.filename, subfolder: o.subfolder, type: o.type, node: o.node, key: o.key });

/** The row's list with one more entry (its parameter: outputEntry). */
const LIST_APPENDED = `json_insert(${LIST_OR_EMPTY}, '$[#]', json(?))`;
/** Whether the row lists this output already (its parameters: outputListedParams). */
const OUTPUT_LISTED = `EXISTS (
   SELECT 1 FROM json_each(${LIST_OR_EMPTY}) AS o
   WHERE json_extract(o.value, '$.type') = ? AND json_extract(o.value, '$.subfolder') = ? AND json_extract(o.value, '$.filename') = ?)`;
const outputListedParams = (o: OutputFile): SqlValue[] => [o.type, o.subfolder, o.filename];

const JOB_ORIGINS: readonly JobOrigin[] = ['window', 'cli', 'hot-folder', 'other'];

const IN_FLIGHT: readonly StoredPhase[] = ['submitting', 'pending', 'running'];

// Rows come from a file on disk: validate them like any other untrusted input.
const rowSchema = z.object({
  prompt_id: z.string(),
  profile_id: z.string().nullable(),
  server_kind: z.enum(['cloud', 'local']),
  base_url: z.string(),
  client_id: z.string().nullable(),
  workflow: z.string().nullable(),
  workflow_name: z.string().nullable(),
  phase: z.enum(['submitting', 'pending', 'running', 'succeeded', 'failed', 'cancelled']),
  raw_status: z.string().nullable(),
  number: z.number().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
  ended_at: z.number().nullable(),
  error: z.string().nullable(),
  outputs: z.string(),
  progress: z.string().nullable(),
  // Absent on rows read through an older schema; an unknown word reads as unknown.
  origin: z.string().nullish(),
  library_takes_outputs: z.number().nullish(),
});

const outputSchema = z.object({
  filename: z.string(),
  subfolder: z.string(),
  type: z.string(),
  node: z.string(),
  key: z.string(),
});

const errorSchema = z.object({
  exceptionType: z.string().nullable(),
  explanation: z.string(),
  message: z.string(),
  nodeId: z.string().nullable(),
  nodeType: z.string().nullable(),
  traceback: z.array(z.string()),
});

const progressSchema = z.object({
  nodesDone: z.number(),
  nodesTotal: z.number().nullable(),
  currentNode: z.string().nullable(),
});

function parseJsonColumn<T>(text: string | null, schema: z.ZodType<T>): T | null {
  if (text === null) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function parseWorkflowColumn(text: string | null): Workflow | null {
  if (text === null) return null;
  try {
    const value = parseJsonExact(text);
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

function toRecord(raw: Record<string, unknown>): JobRecord | null {
  const parsed = rowSchema.safeParse(raw);
  if (!parsed.success) return null;
  const row = parsed.data;
  return {
    promptId: row.prompt_id,
    profileId: row.profile_id,
    serverKind: row.server_kind,
    baseUrl: row.base_url,
    clientId: row.client_id,
    workflow: parseWorkflowColumn(row.workflow),
    workflowName: row.workflow_name,
    phase: row.phase,
    rawStatus: row.raw_status,
    number: row.number,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
    error: parseJsonColumn(row.error, errorSchema),
    outputs: parseJsonColumn(row.outputs, z.array(outputSchema)) ?? [],
    progress: parseJsonColumn(row.progress, progressSchema),
    origin: JOB_ORIGINS.find((o) => o === row.origin) ?? null,
    libraryTakesOutputs: row.library_takes_outputs === 1,
  };
}

/** A new row of the jobs table; its values come from newRowParams, in this order. */
const INSERT_JOB = `INSERT INTO jobs (prompt_id, profile_id, server_kind, base_url, client_id, workflow, workflow_name,
         phase, raw_status, number, created_at, updated_at, origin)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

function newRowParams(job: NewJob, phase: StoredPhase, rawStatus: string, now: number): SqlValue[] {
  return [
    job.promptId,
    job.profileId ?? null,
    job.serverKind,
    job.baseUrl,
    job.clientId ?? null,
    job.workflow ? stringifyJsonExact(job.workflow) : null,
    job.workflowName ?? null,
    phase,
    rawStatus,
    job.number ?? null,
    now,
    now,
    job.origin ?? null,
  ];
}

export class JobStore {
  private readonly store: Store;
  private readonly now: () => number;
  private readonly heldSends: () => Promise<Set<string>>;
  /** Jobs recorded through this store (see RECORDED_BY_STORE). */
  private readonly recorded: Set<string>;
  /** Sends under way in this process (see SENDING_BY_STORE). */
  private readonly sending: Set<string>;

  private constructor(store: Store, now: () => number, heldSends: () => Promise<Set<string>>) {
    this.store = store;
    this.now = now;
    this.heldSends = heldSends;
    let recorded = RECORDED_BY_STORE.get(store);
    if (!recorded) RECORDED_BY_STORE.set(store, (recorded = new Set()));
    this.recorded = recorded;
    let sending = SENDING_BY_STORE.get(store);
    if (!sending) SENDING_BY_STORE.set(store, (sending = new Set()));
    this.sending = sending;
  }

  /** Applies the jobs migrations to `store` and returns the journal over it. */
  /**
   * `heldSends`: the unconfirmed sends ('submitting') that their sender still holds and settles
   * itself (a hot folder: watch/journal.ts heldUnconfirmedSends), told by whoever opens the store so
   * that jobs/ needs no knowledge of hot folders; none by default.
   */
  static async open(store: Store, options: { now?: () => number; heldSends?: () => Promise<Set<string>> } = {}): Promise<JobStore> {
    await store.migrate('jobs', JOBS_MIGRATIONS);
    return new JobStore(store, options.now ?? Date.now, options.heldSends ?? (async () => new Set<string>()));
  }

  /**
   * Runs `send` (a send journaled as 'submitting' under `promptId`, its answer and its journaling)
   * with the id marked as a send under way in this process. Until it settles, its row is the
   * sender's to settle: a reconciliation meanwhile (a session that starts while the first job is
   * sent) would ask the server before the send arrived and call it never submitted.
   */
  async whileSending<T>(promptId: string, send: () => Promise<T>): Promise<T> {
    this.sending.add(promptId);
    try {
      return await send();
    } finally {
      this.sending.delete(promptId);
    }
  }

  /** Whether `promptId` is a send under way in this process (whileSending). */
  isBeingSent(promptId: string): boolean {
    return this.sending.has(promptId);
  }

  /**
   * Records a job before it is sent (the client chose its prompt_id), so that a crash between
   * sending and reading the answer leaves a trace that reconciliation can settle.
   */
  async recordSubmitting(job: NewJob): Promise<void> {
    await this.insert(job, 'submitting', 'submitting');
    this.noteRecorded(job.promptId);
  }

  /**
   * Records a job the server accepted. A row written by recordSubmitting moves on to `pending`
   * (keeping its creation time); a row already further along is left as it is. One statement (an
   * upsert; SET expressions read the row as it was), so no transaction is needed.
   */
  async recordSubmitted(job: NewJob): Promise<void> {
    const now = this.now();
    await this.store.run(
      `${INSERT_JOB}
       ON CONFLICT (prompt_id) DO UPDATE SET number = COALESCE(excluded.number, number),
         client_id = COALESCE(excluded.client_id, client_id), workflow = COALESCE(excluded.workflow, workflow),
         workflow_name = COALESCE(excluded.workflow_name, workflow_name), profile_id = COALESCE(excluded.profile_id, profile_id),
         origin = COALESCE(excluded.origin, origin), updated_at = excluded.updated_at,
         phase = CASE WHEN phase = 'submitting' THEN 'pending' ELSE phase END,
         raw_status = CASE WHEN phase = 'submitting' THEN 'submitted' ELSE raw_status END`,
      newRowParams(job, 'pending', 'submitted', now),
    );
    this.noteRecorded(job.promptId);
  }

  /**
   * A send journaled under its Idempotency-Key (Comfy API v2, where the server names the job) was
   * answered: the row takes the job's own id. Only a row still `submitting` moves; false when
   * there is none (the intent was settled meanwhile).
   */
  async renameSubmitting(key: string, jobId: string): Promise<boolean> {
    const result = await this.store.run("UPDATE jobs SET prompt_id = ?, updated_at = ? WHERE prompt_id = ? AND phase = 'submitting'", [jobId, this.now(), key]);
    this.recorded.delete(key);
    this.noteRecorded(jobId);
    return result.changes > 0;
  }

  /**
   * renameSubmitting and recordSubmitted in one statement, for a send answered in this process:
   * the row written by recordSubmitting (with this very intent) takes the job's id and number and
   * moves on to `pending`, without writing the workflow again. False when no such row is left
   * (the caller then records the job with recordSubmitted).
   */
  async acceptSubmitting(key: string, jobId: string, number: number | null): Promise<boolean> {
    const result = await this.store.run(
      `UPDATE jobs SET prompt_id = ?, number = COALESCE(?, number), phase = 'pending', raw_status = 'submitted', updated_at = ?
       WHERE prompt_id = ? AND phase = 'submitting'`,
      [jobId, number, this.now(), key],
    );
    this.recorded.delete(key);
    if (result.changes > 0) this.noteRecorded(jobId);
    return result.changes > 0;
  }

  /** Records an accepted job unless the journal has it already (then its record is left as it is). */
  async recordSubmittedIfAbsent(job: NewJob): Promise<void> {
    if (this.recorded.has(job.promptId)) return;
    await this.insertWith(this.store, job, 'pending', 'submitted');
    this.noteRecorded(job.promptId);
  }

  private noteRecorded(promptId: string): void {
    if (this.recorded.size >= RECORDED_IDS_KEPT) this.recorded.delete(this.recorded.values().next().value as string);
    this.recorded.add(promptId);
  }

  /** Sets the phase (and the server's word); a terminal phase also stamps ended_at. */
  async updatePhase(promptId: string, phase: StoredPhase, rawStatus: string | null, progress?: ProgressSummary | null): Promise<void> {
    const now = this.now();
    await this.store.run(
      `UPDATE jobs SET phase = ?, raw_status = COALESCE(?, raw_status), updated_at = ?,
         ended_at = CASE WHEN ? THEN COALESCE(ended_at, ?) ELSE NULL END,
         progress = COALESCE(?, progress)
       WHERE prompt_id = ?`,
      [phase, rawStatus, now, isTerminalPhase(phase) ? 1 : 0, now, progress ? JSON.stringify(progress) : null, promptId],
    );
  }

  /** Merges `outputs` into the job's list, skipping files it already has. Returns how many were new. */
  async addOutputs(promptId: string, outputs: readonly OutputFile[]): Promise<number> {
    return this.appendOutputs(this.store, promptId, outputs, this.now());
  }

  /**
   * Appends each output the job's list lacks (same type, subfolder and file name: outputKey), one
   * statement per output that reads and writes the list inside SQLite, so no transaction has to
   * read it back first. A list that is not a JSON array (damaged) is started afresh, as a
   * damaged list reads as empty. Returns how many were appended.
   */
  private async appendOutputs(q: Queryable, promptId: string, outputs: readonly OutputFile[], now: number): Promise<number> {
    let added = 0;
    for (const o of outputs) {
      const result = await q.run(`UPDATE jobs SET outputs = ${LIST_APPENDED}, updated_at = ? WHERE prompt_id = ? AND NOT ${OUTPUT_LISTED}`, [
        outputEntry(o),
        now,
        promptId,
        ...outputListedParams(o),
      ]);
      added += result.changes;
    }
    return added;
  }

  async setError(promptId: string, error: JobErrorInfo | null): Promise<void> {
    await this.store.run('UPDATE jobs SET error = ?, updated_at = ? WHERE prompt_id = ?', [error ? JSON.stringify(error) : null, this.now(), promptId]);
  }

  /**
   * Records how a job ended in one write: phase, the server's word, progress, error, and the
   * outputs not recorded yet (appended like addOutputs). Without outputs it is one statement.
   */
  async recordEnd(
    promptId: string,
    end: { phase: StoredPhase; rawStatus: string | null; progress: ProgressSummary | null; error: JobErrorInfo | null; outputs: readonly OutputFile[] },
  ): Promise<void> {
    const now = this.now();
    const endValues: SqlValue[] = [
      end.phase,
      end.rawStatus,
      now,
      isTerminalPhase(end.phase) ? 1 : 0,
      now,
      end.progress ? JSON.stringify(end.progress) : null,
      end.error ? JSON.stringify(end.error) : null,
    ];
    const update = (q: Queryable) => q.run(`${END_SET} WHERE prompt_id = ?`, [...endValues, promptId]);
    if (end.outputs.length === 0) {
      await update(this.store);
      return;
    }
    if (end.outputs.length === 1) {
      // One output (the usual end): appended as appendOutputs does, in the same statement.
      const o = end.outputs[0]!;
      await this.store.run(`${END_SET}, outputs = CASE WHEN ${OUTPUT_LISTED} THEN outputs ELSE ${LIST_APPENDED} END WHERE prompt_id = ?`, [
        ...endValues,
        ...outputListedParams(o),
        outputEntry(o),
        promptId,
      ]);
      return;
    }
    await this.store.transaction(async (tx) => {
      await this.appendOutputs(tx, promptId, end.outputs, now);
      await update(tx);
    });
  }

  async get(promptId: string): Promise<JobRecord | null> {
    const row = await this.store.get('SELECT * FROM jobs WHERE prompt_id = ?', [promptId]);
    return row ? toRecord(row) : null;
  }

  /** Jobs not yet known to have ended (submitting, pending, running), oldest first. */
  async listInFlight(): Promise<JobRecord[]> {
    const marks = IN_FLIGHT.map(() => '?').join(', ');
    const rows = await this.store.all(`SELECT * FROM jobs WHERE phase IN (${marks}) ORDER BY created_at ASC, rowid ASC`, [...IN_FLIGHT]);
    return rows.map(toRecord).filter((r): r is JobRecord => r !== null);
  }

  /** The unconfirmed sends ('submitting') their sender still holds and settles itself; any other is settled by the tracker. */
  heldElsewhere(): Promise<Set<string>> {
    return this.heldSends();
  }

  /**
   * The jobs of a hot folder being removed whose outputs the folder did not take: their outputs go
   * to the library from now on, since the folder will not import them. Returns the jobs among them
   * that had already succeeded (one may end while the folder stops, after its runner's last look
   * and before this hand-over): nobody routed their outputs to the library, so the caller records
   * them now (the library keeps one item per output, so a second record changes nothing).
   */
  async handOverToLibrary(promptIds: readonly string[]): Promise<JobRecord[]> {
    const ended: JobRecord[] = [];
    // In slices: SQLite bounds the number of parameters of one statement.
    for (let at = 0; at < promptIds.length; at += 500) {
      const slice = promptIds.slice(at, at + 500);
      // One statement: the rows it marks are the rows it reads, whatever ends meanwhile.
      const rows = await this.store.all(
        `UPDATE jobs SET library_takes_outputs = 1 WHERE origin = 'hot-folder' AND prompt_id IN (${slice.map(() => '?').join(', ')}) RETURNING *`,
        slice,
      );
      for (const record of rows.map(toRecord)) if (record?.phase === 'succeeded' && record.outputs.length > 0) ended.push(record);
    }
    return ended;
  }

  /** Most recent first. */
  async list(options: { limit?: number; offset?: number } = {}): Promise<JobRecord[]> {
    const limit = Math.max(0, Math.min(10_000, Math.floor(options.limit ?? 100)));
    const offset = Math.max(0, Math.floor(options.offset ?? 0));
    const rows = await this.store.all('SELECT * FROM jobs ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?', [limit, offset]);
    return rows.map(toRecord).filter((r): r is JobRecord => r !== null);
  }

  /** Forgets a job (e.g. a submit the server rejected outright, so there is nothing to follow). */
  async remove(promptId: string): Promise<void> {
    this.recorded.delete(promptId);
    await this.store.run('DELETE FROM jobs WHERE prompt_id = ?', [promptId]);
  }

  private async insert(job: NewJob, phase: StoredPhase, rawStatus: string): Promise<void> {
    await this.insertWith(this.store, job, phase, rawStatus);
  }

  private async insertWith(q: Queryable, job: NewJob, phase: StoredPhase, rawStatus: string): Promise<void> {
    const now = this.now();
    await q.run(`${INSERT_JOB} ON CONFLICT (prompt_id) DO NOTHING`, newRowParams(job, phase, rawStatus, now));
  }
}

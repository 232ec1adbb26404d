// Jobs as main reports them (job.update), plus what only the renderer knows about the jobs it
// submitted: the display names of their nodes, the workflow exactly as it went (so a job is named
// by its prompt and seed, and "Reuse parameters" puts its values back), and the repeated run it
// belongs to. Jobs started elsewhere (a hot folder, the CLI, an earlier session) get their workflow
// from the app's job journal (history.list), looked up in one call for many jobs.
// A job.update that only moves a running job's progress is applied through the PaintSync: while
// live previews are on screen it goes out with the next preview frame (one frame per step).
import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import type { JobSnapshotView } from '@shared/ipc/contract';
import { isJsonObject, parseJsonExact, type JsonObject } from '@shared/json';
import { messageOf, type Api } from '../api';
import { jobName, jobParams, type JobParams } from '../jobs/job-params';
import { routeJobUpdate, syncKeyOf } from '../jobs/job-update-route';
import { isFinishedJob, jobsToLoad } from '../jobs/jobs-to-load';
import type { JobOrigin } from '../jobs/job-words';
import { Clock } from './clock.svelte';
import { OutputStore } from './outputs.svelte';
import { PaintSync } from './paint-sync';
import { PreviewStore, decodeBitmap } from './previews.svelte';

export interface JobMeta {
  /** node id -> display name (from the form the job was submitted from). */
  nodeNames: Record<string, string>;
  /** The image inputs' values when it was submitted (server file names), for the viewer's comparison. */
  inputImages?: string[];
  /** The workflow exactly as submitted (64-bit seeds as bigint). */
  workflow?: JsonObject;
  /** The repeated run ("Repeat 4") this job is one of: its id, shared by all, and how many runs. */
  batch?: { id: string; count: number };
}

/** How many journal entries one look-up for unknown workflows reads (newest first). */
const LOOKUP_PAGE = 100;

/** Jobs kept on screen; the oldest finished ones are dropped beyond this (their blobs released). */
const MAX_JOBS = 50;

const CLEARED_KEY = 'flowdeck.jobs.clearedBefore';

/** Finished jobs that ended at or before this time were cleared from the panel (kept across reloads). */
function clearedBefore(): number {
  try {
    const value = Number(globalThis.localStorage?.getItem(CLEARED_KEY) ?? 0);
    return Number.isFinite(value) ? value : 0;
  } catch {
    return 0;
  }
}

function rememberClearedBefore(at: number): void {
  try {
    globalThis.localStorage?.setItem(CLEARED_KEY, String(at));
  } catch {
    // Storage refused (private mode, quota): the panel is cleared for this session only.
  }
}

export const isFinished = isFinishedJob;

export class JobsStore {
  readonly jobs = new SvelteMap<string, JobSnapshotView>();
  readonly meta = new SvelteMap<string, JobMeta>();
  /** Holds number-only changes for the next live-preview frame (see paint-sync.ts). */
  readonly sync = new PaintSync();
  readonly previews = new PreviewStore(decodeBitmap, this.sync);
  /** The time running durations are counted to, one clock for every view. */
  readonly clock = new Clock(this.sync);
  readonly outputs: OutputStore;
  /** Per-job message of a failed cancel. */
  readonly cancelErrors = new SvelteMap<string, string>();
  /** Jobs whose cancel the server accepted, until their update says how they ended. */
  readonly cancelRequested = new SvelteSet<string>();
  /** Repeated runs (batch ids) the user unfolded in Jobs: kept while the view comes and goes. */
  readonly unfolded = new SvelteSet<string>();
  /** Jobs someone in this window asked to stop (card, Queue view): only those end "cancelled". */
  readonly stopRequested = new SvelteSet<string>();
  list = $derived([...this.jobs.values()].sort((a, b) => b.submittedAt - a.submittedAt));
  /** Workflows of jobs not submitted from this window, read from the journal. */
  readonly #journaled = new SvelteMap<string, JsonObject>();
  /** Jobs whose workflow was asked of the journal already (found or not): never asked twice. */
  readonly #asked = new Set<string>();
  #lookup: ReturnType<typeof setTimeout> | null = null;
  readonly #api: Api;

  constructor(api: Api) {
    this.#api = api;
    this.outputs = new OutputStore(api);
  }

  attach(): () => void {
    const offUpdate = this.#api.on('job.update', (job) => this.#receive(job));
    const offPreview = this.#api.on('job.preview', (frame) => {
      // A frame that arrives after its job ended is not shown (and holds no object URL).
      const job = this.jobs.get(frame.promptId);
      return job && isFinished(job) ? undefined : this.previews.accept(frame);
    });
    return () => {
      offUpdate();
      offPreview();
    };
  }

  async load(): Promise<void> {
    const { jobs } = await this.#api.call('jobs.list');
    // Jobs that had finished when the panel was last cleared stay cleared (the History view has them).
    for (const job of jobsToLoad(jobs, clearedBefore(), MAX_JOBS)) this.#apply(job);
  }

  remember(promptId: string, meta: JobMeta): void {
    this.meta.set(promptId, meta);
  }

  /** The workflow a job was submitted with, when known (this window's, else the journal's). */
  workflowOf(promptId: string): JsonObject | null {
    return this.meta.get(promptId)?.workflow ?? this.#journaled.get(promptId) ?? null;
  }

  paramsOf(promptId: string): JobParams {
    return jobParams(this.workflowOf(promptId));
  }

  /** "a lighthouse at dusk · seed 42", else the workflow's title. */
  nameOf(job: JobSnapshotView): string {
    return jobName(job.label, this.paramsOf(job.promptId));
  }

  noteStopRequested(promptIds: readonly string[]): void {
    for (const id of promptIds) this.stopRequested.add(id);
  }

  /** Takes the finished jobs off the panel (their files stay in the library and the history). */
  clearFinished(): void {
    const finished = [...this.jobs.values()].filter(isFinished);
    for (const job of finished) this.#forget(job.promptId);
    const latest = Math.max(0, ...finished.map((j) => j.finishedAt ?? j.updatedAt));
    if (latest > clearedBefore()) rememberClearedBefore(latest);
  }

  /**
   * Cancels a job. Returns the number of running jobs that stopping it would stop too (the
   * cloud's interrupt stops them all) when the user must agree first; call again with
   * `stopAllRunning` once they have. Null otherwise.
   */
  async cancel(promptId: string, stopAllRunning = false): Promise<number | null> {
    this.cancelErrors.delete(promptId);
    try {
      const { cancelled, stopsAllRunning } = await this.#api.call('jobs.cancel', stopAllRunning ? { promptId, stopAllRunning } : { promptId });
      // Nothing was stopped yet: the user is asked first (the cloud would stop every running job).
      if (stopsAllRunning !== undefined) return stopsAllRunning;
      this.stopRequested.add(promptId);
      if (!cancelled) this.cancelErrors.set(promptId, 'The job could not be cancelled: it may have finished already.');
      else if (!this.#finished(promptId)) this.cancelRequested.add(promptId);
    } catch (error) {
      this.cancelErrors.set(promptId, messageOf(error));
    }
    return null;
  }

  /** "Check again" on a job whose server stopped answering: asks the server now. */
  async checkAgain(promptId: string): Promise<void> {
    this.cancelErrors.delete(promptId);
    try {
      this.#apply(await this.#api.call('jobs.checkAgain', { promptId }));
    } catch (error) {
      this.cancelErrors.set(promptId, messageOf(error));
    }
  }

  /**
   * Where a job came from: main's record when it says, else "this window" for the jobs submitted
   * from this window's form. Null when nobody knows (a job main reports without an origin).
   */
  originOf(job: JobSnapshotView): JobOrigin | null {
    if (job.origin) return job.origin;
    return this.meta.has(job.promptId) ? 'window' : null;
  }

  /** The display name of the node a job is running, from the form it came from when known. */
  nodeName(job: JobSnapshotView, nodeId: string): string {
    return this.meta.get(job.promptId)?.nodeNames[nodeId] ?? `node ${nodeId}`;
  }

  /** A job.update from main: a progress-only change waits for the next preview frame (job-update-route.ts). */
  #receive(update: JobSnapshotView): void {
    const job = this.#withOrigin(update);
    routeJobUpdate(this.sync, this.jobs.get(job.promptId), job, (view) => this.#store(view));
  }

  #apply(update: JobSnapshotView): void {
    this.sync.drop(syncKeyOf(update.promptId));
    this.#store(this.#withOrigin(update));
  }

  /** Live updates of a job may not repeat where it came from; what was known stays. */
  #withOrigin(update: JobSnapshotView): JobSnapshotView {
    const origin = update.origin ?? this.jobs.get(update.promptId)?.origin ?? null;
    return origin === (update.origin ?? null) ? update : { ...update, origin };
  }

  #store(job: JobSnapshotView): void {
    this.jobs.set(job.promptId, job);
    if (!this.meta.get(job.promptId)?.workflow) this.#lookUpSoon(job.promptId);
    if (isFinished(job)) {
      this.cancelRequested.delete(job.promptId);
      // The outputs replace the live preview; its object URL is released now.
      this.previews.forget(job.promptId);
      if (job.outputs.length > 0) this.outputs.ensure(job.promptId, job.outputs);
    }
    if (this.jobs.size > MAX_JOBS) this.#trim();
  }

  /**
   * Asks the journal for the workflows of jobs this window did not submit, a moment later so the
   * jobs that arrive together (a reload, a hot folder's batch) are read in one call.
   */
  #lookUpSoon(promptId: string): void {
    if (this.#asked.has(promptId)) return;
    if (this.#lookup === null) this.#lookup = setTimeout(() => void this.#readJournal(), 300);
  }

  async #readJournal(): Promise<void> {
    this.#lookup = null;
    const wanted = [...this.jobs.keys()].filter((id) => !this.#asked.has(id) && !this.meta.get(id)?.workflow);
    if (wanted.length === 0) return;
    for (const id of wanted) this.#asked.add(id);
    try {
      const page = await this.#api.call('history.list', { source: 'app', offset: 0, limit: LOOKUP_PAGE });
      const want = new Set(wanted);
      for (const entry of page.entries) {
        if (!want.has(entry.promptId) || entry.workflowJson === null) continue;
        try {
          const workflow = parseJsonExact(entry.workflowJson);
          if (isJsonObject(workflow)) this.#journaled.set(entry.promptId, workflow);
        } catch {
          // A damaged journal entry: the job is named by its workflow's title instead.
        }
      }
    } catch (error) {
      // Names fall back to the workflow's title; nothing else depends on this.
      console.warn('flowdeck: the job journal could not be read for job names', messageOf(error));
    }
  }

  #finished(promptId: string): boolean {
    const job = this.jobs.get(promptId);
    return job !== undefined && isFinished(job);
  }

  #trim(): void {
    const finished = [...this.jobs.values()].filter(isFinished).sort((a, b) => a.submittedAt - b.submittedAt);
    for (const job of finished.slice(0, this.jobs.size - MAX_JOBS)) this.#forget(job.promptId);
  }

  #forget(promptId: string): void {
    this.sync.drop(syncKeyOf(promptId));
    this.jobs.delete(promptId);
    this.meta.delete(promptId);
    this.#journaled.delete(promptId);
    this.stopRequested.delete(promptId);
    this.cancelErrors.delete(promptId);
    this.previews.forget(promptId);
    this.outputs.release(promptId);
  }
}

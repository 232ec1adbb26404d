// Jobs, the queue they wait in, and the history of finished ones.
// Numbers are handed out like the local server's: a counter per submit, negated for `front`, and
// pending jobs run lowest number first (so a front job runs next).
import type { JsonObject } from '@shared/json';
import type { JobAudience } from './events-hub';

const MAX_HISTORY = 10_000;

export type JobState = 'pending' | 'running' | 'success' | 'error' | 'cancelled';

export interface Job extends JobAudience {
  number: number;
  /** The workflow as validated (input values converted to their types). */
  prompt: JsonObject;
  /** extra_data as shown in queue and history: client_id merged in, secrets removed. */
  extraData: JsonObject;
  /** extra_data as submitted, for the nodes (partner nodes read the platform key from it). */
  execExtraData: JsonObject;
  /** Output nodes that passed validation (outputs_to_execute). */
  outputs: string[];
  createdAt: number;
  updatedAt: number;
  /** When the worker took it, and when it ended there (epoch ms; the cloud's job list shows them). */
  startedAt?: number;
  endedAt?: number;
  state: JobState;
  /** Cancelled jobs: whether they were interrupted while running or deleted while pending. */
  cancelReason?: 'interrupted' | 'deleted';
  errorMessage?: string;
  /** The node running now (while the job runs). */
  currentNode?: string;
  readonly abort: AbortController;
}

export interface NodeMeta {
  node_id: string;
  display_node: string;
  parent_node: null;
  real_node_id: string;
}

export interface HistoryEntry {
  prompt: [number, string, JsonObject, JsonObject, string[]];
  outputs: Record<string, Record<string, unknown>>;
  status: { status_str: 'success' | 'error'; completed: boolean; messages: Array<[string, unknown]> };
  meta: Record<string, NodeMeta>;
}

export class JobQueue {
  private pending: Job[] = [];
  private runningJob: Job | null = null;
  private readonly jobs = new Map<string, Job>();
  private readonly history = new Map<string, HistoryEntry>();
  private counter = 0;
  private wake: (() => void) | null = null;

  /** The next submit number (the counter advances for every parsed submit, accepted or not). */
  allocateNumber(front: boolean): number {
    const n = this.counter++;
    return front ? -n : n;
  }

  isKnownId(promptId: string): boolean {
    return this.jobs.has(promptId);
  }

  get(promptId: string): Job | undefined {
    return this.jobs.get(promptId);
  }

  add(job: Job): void {
    this.jobs.set(job.promptId, job);
    this.pending.push(job);
    this.pending.sort((a, b) => a.number - b.number);
    this.wake?.();
  }

  get running(): Job | null {
    return this.runningJob;
  }

  /** Takes the next pending job and marks it running. */
  takeNext(): Job | undefined {
    const job = this.pending.shift();
    if (!job) return undefined;
    this.runningJob = job;
    job.state = 'running';
    job.updatedAt = Date.now();
    job.startedAt = job.updatedAt;
    return job;
  }

  /** The running job has ended; its history entry (if any) becomes visible now. */
  finish(job: Job, entry: HistoryEntry | null): void {
    if (this.runningJob === job) this.runningJob = null;
    job.endedAt = Date.now();
    if (!entry) return;
    this.history.set(job.promptId, entry);
    // The real server keeps the latest 10000 entries.
    for (const id of this.history.keys()) {
      if (this.history.size <= MAX_HISTORY) break;
      this.history.delete(id);
    }
  }

  /** Waits until a job is added or `signal` aborts. */
  waitForWork(signal: AbortSignal): Promise<void> {
    if (this.pending.length > 0 || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.wake = null;
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.wake = done;
      signal.addEventListener('abort', done);
    });
  }

  private visible(job: Job, owner: string | null | undefined): boolean {
    return owner === undefined || job.owner === owner;
  }

  /** Pending jobs in run order; `owner` limits to one account (cloud). */
  pendingJobs(owner?: string | null): Job[] {
    return this.pending.filter((j) => this.visible(j, owner));
  }

  runningJobs(owner?: string | null): Job[] {
    return this.runningJob && this.visible(this.runningJob, owner) ? [this.runningJob] : [];
  }

  remaining(owner?: string | null): number {
    return this.pendingJobs(owner).length + this.runningJobs(owner).length;
  }

  /** Removes pending jobs by id (of `owner` when given); returns those removed, marked cancelled. */
  removePending(ids: readonly string[], owner?: string | null): Job[] {
    const wanted = new Set(ids);
    return this.removeWhere((j) => wanted.has(j.promptId) && this.visible(j, owner));
  }

  clearPending(owner?: string | null): Job[] {
    return this.removeWhere((j) => this.visible(j, owner));
  }

  private removeWhere(predicate: (job: Job) => boolean): Job[] {
    const removed = this.pending.filter(predicate);
    this.pending = this.pending.filter((j) => !predicate(j));
    for (const job of removed) {
      job.state = 'cancelled';
      job.cancelReason = 'deleted';
      job.updatedAt = Date.now();
    }
    return removed;
  }

  /** Every job ever submitted (of `owner` when given), in submit order. */
  allJobs(owner?: string | null): Job[] {
    return [...this.jobs.values()].filter((j) => this.visible(j, owner));
  }

  historyOf(promptId: string): HistoryEntry | undefined {
    return this.history.get(promptId);
  }

  /** The latest `maxItems` entries (all when undefined), oldest first, as the local server returns them. */
  historyEntries(maxItems?: number, owner?: string | null): Array<[string, HistoryEntry]> {
    const entries = [...this.history.entries()].filter(([id]) => {
      const job = this.jobs.get(id);
      return job !== undefined && this.visible(job, owner);
    });
    return maxItems === undefined ? entries : entries.slice(Math.max(0, entries.length - maxItems));
  }

  deleteHistory(ids: readonly string[]): void {
    for (const id of ids) this.history.delete(id);
  }

  clearHistory(): void {
    this.history.clear();
  }
}

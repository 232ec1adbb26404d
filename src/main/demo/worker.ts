// The single worker: takes jobs in queue order and runs them one at a time. Around each job it
// sends what the real server sends: `status` when it takes the job, `status` when the job is
// done (its history is visible from then on), then `executing {node: null}` (local only; the
// cloud may not send it, and clients must not depend on it).
import type { EventsHub } from './events-hub';
import { executeJob, type ExecutorDeps } from './executor';
import type { HistoryEntry, Job, JobQueue } from './queue';

export class Worker {
  private readonly stopping = new AbortController();
  private loop: Promise<void> | null = null;

  constructor(
    private readonly queue: JobQueue,
    private readonly hub: EventsHub,
    private readonly deps: ExecutorDeps,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Interrupts the running job (only if it is `promptId`, when given). Returns whether one was. */
  interrupt(promptId?: string, owner?: string | null): boolean {
    const job = this.queue.running;
    if (!job || job.abort.signal.aborted) return false;
    if (promptId !== undefined && job.promptId !== promptId) return false;
    if (owner !== undefined && job.owner !== owner) return false;
    job.abort.abort();
    return true;
  }

  /** Interrupts every running job of `owner` (the cloud's interrupt); returns how many. */
  interruptAll(owner: string | null): number {
    // One worker runs one job at a time, so "all" is at most one here; the rule is the cloud's.
    return this.queue.runningJobs(owner).filter((job) => this.interrupt(job.promptId, owner)).length;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.queue.running?.abort.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      const job = this.queue.takeNext();
      if (!job) {
        await this.queue.waitForWork(signal);
        continue;
      }
      this.hub.sendStatus();
      const entry = await this.runOne(job);
      this.queue.finish(job, entry);
      this.hub.sendStatus();
      if (this.deps.flavour === 'local') this.hub.sendJobEvent(job, 'executing', { node: null, prompt_id: job.promptId });
    }
  }

  private async runOne(job: Job): Promise<HistoryEntry | null> {
    try {
      return await executeJob(job, this.deps);
    } catch (error) {
      // A fault in the demo itself, not in a node: the job fails rather than the worker.
      job.state = 'error';
      job.errorMessage = error instanceof Error ? error.message : String(error);
      job.updatedAt = Date.now();
      return null;
    }
  }
}

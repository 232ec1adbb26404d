// The tracker's writes to the job journal (JobStore), kept in order per job: each write for a job
// starts after its previous one, so the journal never shows an older phase over a newer one, and
// a waiter can be told "ended" only once the end is on disk. A failed write is a warning, never
// a stop. With no store, every write is a no-op.
import type { JobStore } from './job-store';
import type { JobState } from './job-state';
import { describe } from './tracker-errors';

export class JobJournal {
  private readonly persistChains = new Map<string, Promise<void>>();

  constructor(
    private readonly store: JobStore | null,
    private readonly warn: (message: string) => void,
  ) {}

  /** Queues a journal write for job `promptId`, in order with its earlier writes. */
  write(promptId: string, write: (store: JobStore) => Promise<unknown>): void {
    const store = this.store;
    if (!store) return;
    const previous = this.persistChains.get(promptId) ?? Promise.resolve();
    const next = previous.then(() => write(store)).then(
      () => undefined,
      (error: unknown) => this.warn(`Could not record job ${promptId} in the journal: ${describe(error)}`),
    );
    this.persistChains.set(promptId, next);
    void next.then(() => {
      if (this.persistChains.get(promptId) === next) this.persistChains.delete(promptId);
    });
  }

  /** Journals the job's phase, raw status and progress as they are now. */
  writePhase(job: JobState): void {
    const phase = job.phase;
    const raw = job.rawStatus;
    const progress = job.progressSummary();
    this.write(job.promptId, (store) => store.updatePhase(job.promptId, phase, raw, progress));
  }

  /** Resolves once every write queued so far for `promptId` is done. */
  settled(promptId: string): Promise<void> {
    return this.persistChains.get(promptId) ?? Promise.resolve();
  }

  /** Resolves once every write queued so far, for any job, is done. */
  async flush(): Promise<void> {
    await Promise.all([...this.persistChains.values()]);
  }
}

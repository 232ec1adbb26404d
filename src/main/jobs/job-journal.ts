// The tracker's writes to the job journal (JobStore), kept in order per job: each write for a job
// starts after its previous one, so the journal never shows an older phase over a newer one, and
// a waiter can be told "ended" only once the end is on disk. A failed write is a warning, never
// a stop. With no store, every write is a no-op.
// The outputs each job's writes have recorded are remembered, so the end of a job whose outputs
// are all on disk already (written when they were announced) is one statement, not a transaction
// that reads the list back to merge nothing into it; outputs announced just before the end (the
// usual case) are written with it (writeOutputs waits a moment for it).
import type { OutputFile } from '@main/service/types';
import type { JobStore } from './job-store';
import type { JobState } from './job-state';
import { describeError } from '@shared/describe-error';
import { outputKey, type JobErrorInfo, type StoredPhase } from './types';

/** How long an announced phase waits to be written (see writePhaseSoon). */
const PHASE_DELAY_MS = 250;

export class JobJournal {
  private readonly persistChains = new Map<string, Promise<void>>();
  /** Phase writes waiting to start (writePhaseSoon), per job. */
  private readonly soonPhases = new Map<string, { job: JobState; timer: ReturnType<typeof setTimeout> }>();
  /** Output writes waiting to start (writeOutputs), per job. */
  private readonly soonOutputs = new Map<string, { outputs: OutputFile[]; timer: ReturnType<typeof setTimeout> }>();
  /** Per job, the keys (outputKey) of the outputs its writes have recorded. */
  private readonly recordedOutputs = new Map<string, Set<string>>();

  constructor(
    private readonly store: JobStore | null,
    private readonly warn: (message: string) => void,
  ) {}

  /** Queues a journal write for job `promptId`, in order with its earlier writes. */
  write(promptId: string, write: (store: JobStore) => Promise<unknown>): void {
    const store = this.store;
    if (!store) return;
    const previous = this.persistChains.get(promptId) ?? Promise.resolve();
    const next = previous
      .then(() => write(store))
      .then(
        () => undefined,
        (error: unknown) => this.warn(`Could not record job ${promptId} in the journal: ${describeError(error)}`),
      );
    this.persistChains.set(promptId, next);
    void next.then(() => {
      if (this.persistChains.get(promptId) === next) this.persistChains.delete(promptId);
    });
  }

  /**
   * Journals the job's phase a moment later (PHASE_DELAY_MS), as it is then: a job that ends
   * meanwhile (most do, when they are quick) has its end written instead, in one statement. For
   * phases a server event announced (pending -> running): nothing waits for them on disk, and a
   * restart asks the server about a job journaled as pending or running alike.
   */
  writePhaseSoon(job: JobState): void {
    if (!this.store || this.soonPhases.has(job.promptId)) return;
    const timer = setTimeout(() => this.startSoonPhase(job.promptId), PHASE_DELAY_MS);
    timer.unref();
    this.soonPhases.set(job.promptId, { job, timer });
  }

  private startSoonPhase(promptId: string): void {
    const soon = this.soonPhases.get(promptId);
    if (!soon) return;
    clearTimeout(soon.timer);
    this.soonPhases.delete(promptId);
    this.writePhase(soon.job);
  }

  /** Journals the job's phase, raw status and progress as they are now. */
  writePhase(job: JobState): void {
    const phase = job.phase;
    const raw = job.rawStatus;
    const progress = job.progressSummary();
    this.write(job.promptId, (store) => store.updatePhase(job.promptId, phase, raw, progress));
  }

  /**
   * Journals outputs of job `promptId` that this journal has not recorded yet, a moment later
   * (PHASE_DELAY_MS), like a phase: a job that ends meanwhile (most do: its outputs come with its
   * last node) has them written with its end, in the same statement. A restart reads a job's
   * outputs from the server's history anyway; nothing waits for them on disk before the end.
   */
  writeOutputs(promptId: string, outputs: readonly OutputFile[]): void {
    if (!this.store) return;
    const soon = this.soonOutputs.get(promptId);
    if (soon) {
      soon.outputs.push(...outputs);
      return;
    }
    const timer = setTimeout(() => this.startSoonOutputs(promptId), PHASE_DELAY_MS);
    timer.unref();
    this.soonOutputs.set(promptId, { outputs: [...outputs], timer });
  }

  private startSoonOutputs(promptId: string): void {
    const soon = this.soonOutputs.get(promptId);
    if (!soon) return;
    clearTimeout(soon.timer);
    this.soonOutputs.delete(promptId);
    this.write(promptId, async (store) => {
      const fresh = this.unrecorded(promptId, soon.outputs);
      if (fresh.length === 0) return;
      await store.addOutputs(promptId, fresh);
      this.noteRecorded(promptId, fresh);
    });
  }

  /** Journals the end of job `job`: phase, raw status, progress, error and the outputs not yet recorded. */
  writeEnd(job: JobState, phase: StoredPhase, raw: string, outputs: readonly OutputFile[], error: JobErrorInfo | null): void {
    const promptId = job.promptId;
    // The end writes the phase itself: a phase write still waiting is not needed.
    const soon = this.soonPhases.get(promptId);
    if (soon) clearTimeout(soon.timer);
    this.soonPhases.delete(promptId);
    // Outputs still waiting are among `outputs` (the job's whole list): the end writes them.
    const soonOutputs = this.soonOutputs.get(promptId);
    if (soonOutputs) clearTimeout(soonOutputs.timer);
    this.soonOutputs.delete(promptId);
    this.write(promptId, async (store) => {
      // Read when the write runs: the earlier writes of this job have finished by then.
      const fresh = this.unrecorded(promptId, outputs);
      await store.recordEnd(promptId, { phase, rawStatus: raw, progress: job.progressSummary(), error, outputs: fresh });
      this.recordedOutputs.delete(promptId);
    });
  }

  private unrecorded(promptId: string, outputs: readonly OutputFile[]): OutputFile[] {
    const recorded = this.recordedOutputs.get(promptId);
    return recorded ? outputs.filter((o) => !recorded.has(outputKey(o))) : [...outputs];
  }

  private noteRecorded(promptId: string, outputs: readonly OutputFile[]): void {
    let recorded = this.recordedOutputs.get(promptId);
    if (!recorded) this.recordedOutputs.set(promptId, (recorded = new Set()));
    for (const o of outputs) recorded.add(outputKey(o));
  }

  /** Resolves once every write queued so far for `promptId` (a phase write waiting too) is done. */
  settled(promptId: string): Promise<void> {
    this.startSoonOutputs(promptId);
    this.startSoonPhase(promptId);
    return this.persistChains.get(promptId) ?? Promise.resolve();
  }

  /** Resolves once every write queued so far, for any job, is done. */
  async flush(): Promise<void> {
    for (const promptId of [...this.soonOutputs.keys()]) this.startSoonOutputs(promptId);
    for (const promptId of [...this.soonPhases.keys()]) this.startSoonPhase(promptId);
    await Promise.all([...this.persistChains.values()]);
  }
}

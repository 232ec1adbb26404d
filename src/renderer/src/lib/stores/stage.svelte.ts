// What the Run view's Result stage shows: by default it follows the work of this window (the
// running job's live preview, then its outputs); a click on the session strip puts another job's
// output there until the next run from the form. Also the strip itself: this session's outputs,
// newest first.
import type { JobSnapshotView } from '@shared/ipc/contract';
import { isFinished, type JobsStore } from './jobs.svelte';
import { outputKey, type OutputState } from './outputs.svelte';
import type { RunStore } from './run.svelte';

export type ReadyOutput = Extract<OutputState, { status: 'ready' }>;

export interface StripItem {
  promptId: string;
  key: string;
  output: ReadyOutput;
}

/** The strip keeps the newest outputs of the session; older ones stay in the Library and History. */
const STRIP_LIMIT = 60;

/** The job to follow: this window's running job, else its newest finished one, else its newest. */
export function followedJob(list: readonly JobSnapshotView[], fromWindow: (job: JobSnapshotView) => boolean): JobSnapshotView | null {
  const mine = list.filter(fromWindow);
  const pool = mine.length > 0 ? mine : list;
  return pool.find((j) => j.phase === 'running') ?? pool.find(isFinished) ?? pool[0] ?? null;
}

export class StageStore {
  /** The output the user chose (strip or grid), and when; a later run from the form takes over again. */
  chosen = $state.raw<{ promptId: string; key: string | null; at: number } | null>(null);

  readonly #jobs: JobsStore;
  readonly #run: RunStore;

  constructor(jobs: JobsStore, run: RunStore) {
    this.#jobs = jobs;
    this.#run = run;
  }

  /** The job on the stage. */
  job: JobSnapshotView | null = $derived.by(() => {
    const chosen = this.chosen;
    if (chosen && chosen.at >= this.#run.lastRunAt) {
      const job = this.#jobs.jobs.get(chosen.promptId);
      if (job) return job;
    }
    return followedJob(this.#jobs.list, (j) => this.#jobs.originOf(j) === 'window');
  });

  /** The stage job's outputs that are ready to show. */
  outputs: ReadyOutput[] = $derived.by(() => {
    const job = this.job;
    if (!job) return [];
    return [...(this.#jobs.outputs.byJob.get(job.promptId)?.values() ?? [])].filter((s): s is ReadyOutput => s.status === 'ready');
  });

  /** The output the actions act on: the chosen one, else the first. */
  current: ReadyOutput | null = $derived.by(() => {
    const chosen = this.chosen;
    const key = chosen && this.job && chosen.promptId === this.job.promptId ? chosen.key : null;
    return this.outputs.find((o) => outputKey(o.file) === key) ?? this.outputs[0] ?? null;
  });

  /** This session's outputs, newest job first. */
  strip: StripItem[] = $derived.by(() => {
    const items: StripItem[] = [];
    for (const job of this.#jobs.list) {
      if (job.phase !== 'succeeded') continue;
      for (const state of this.#jobs.outputs.byJob.get(job.promptId)?.values() ?? []) {
        if (state.status !== 'ready') continue;
        items.push({ promptId: job.promptId, key: outputKey(state.file), output: state });
        if (items.length >= STRIP_LIMIT) return items;
      }
    }
    return items;
  });

  /** Puts a job's output on the stage (null key: the job as a whole). */
  show(promptId: string, key: string | null): void {
    this.chosen = { promptId, key, at: Date.now() };
  }

  /** Back to following this window's work. */
  follow(): void {
    this.chosen = null;
  }
}

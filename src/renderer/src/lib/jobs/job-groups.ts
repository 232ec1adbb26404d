// The Jobs panel's entries: a job on its own, or the runs of one "Repeat" as one group that
// expands. Entries with a running job come first, so the running job is always in sight; the rest
// stay newest first. Pure data, so it is tested without a DOM.
import type { JobSnapshotView } from '@shared/ipc/contract';

export type JobEntry = { kind: 'job'; job: JobSnapshotView } | { kind: 'group'; id: string; count: number; jobs: JobSnapshotView[] };

/** `list` newest first; `batchOf` names the repeated run a job belongs to (null: none). */
export function jobEntries(list: readonly JobSnapshotView[], batchOf: (promptId: string) => { id: string; count: number } | null): JobEntry[] {
  const entries: JobEntry[] = [];
  const groups = new Map<string, Extract<JobEntry, { kind: 'group' }>>();
  for (const job of list) {
    const batch = batchOf(job.promptId);
    if (!batch) {
      entries.push({ kind: 'job', job });
      continue;
    }
    let group = groups.get(batch.id);
    if (!group) {
      group = { kind: 'group', id: batch.id, count: batch.count, jobs: [] };
      groups.set(batch.id, group);
      entries.push(group);
    }
    group.jobs.push(job);
  }
  // A group of one (the others were cleared or filtered out) is just that job.
  const flat = entries.map((e): JobEntry => (e.kind === 'group' && e.jobs.length === 1 ? { kind: 'job', job: e.jobs[0]! } : e));
  const running = (e: JobEntry): boolean => (e.kind === 'job' ? e.job.phase === 'running' : e.jobs.some((j) => j.phase === 'running'));
  return [...flat.filter(running), ...flat.filter((e) => !running(e))];
}

/** "4 runs, 2 done", with the failed and stopped ones when there are any. */
export function groupSummary(jobs: readonly Pick<JobSnapshotView, 'phase'>[], count: number): string {
  const total = Math.max(count, jobs.length);
  const done = jobs.filter((j) => j.phase === 'succeeded').length;
  const failed = jobs.filter((j) => j.phase === 'failed').length;
  const stopped = jobs.filter((j) => j.phase === 'cancelled').length;
  const parts = [`${total} runs`, `${done} done`];
  if (failed > 0) parts.push(`${failed} failed`);
  if (stopped > 0) parts.push(`${stopped} stopped`);
  return parts.join(', ');
}

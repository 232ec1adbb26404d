// The per-file table of one folder with its counters kept up to date as rows change, so that a
// folder of ten thousand files never recounts itself on every event.
import type { HotFileRow, HotFileState, HotFolderCounters } from './types';

function bucket(state: HotFileState): keyof HotFolderCounters {
  switch (state) {
    case 'settling':
    case 'waiting':
      return 'waiting';
    case 'uploading':
    case 'submitting':
    case 'running':
      return 'running';
    case 'done':
      return 'done';
    case 'failed':
      return 'failed';
    case 'duplicate':
      return 'duplicates';
  }
}

export class RowTable {
  private readonly rows = new Map<string, HotFileRow>();
  private readonly counts: HotFolderCounters = { waiting: 0, running: 0, done: 0, failed: 0, duplicates: 0 };

  get(key: string): HotFileRow | undefined {
    return this.rows.get(key);
  }

  /** Inserts or replaces a row; returns a copy to publish. */
  put(key: string, row: HotFileRow): HotFileRow {
    const before = this.rows.get(key);
    if (before) this.counts[bucket(before.state)] -= 1;
    this.rows.set(key, row);
    this.counts[bucket(row.state)] += 1;
    return { ...row, outputs: [...row.outputs] };
  }

  delete(key: string): boolean {
    const before = this.rows.get(key);
    if (!before) return false;
    this.counts[bucket(before.state)] -= 1;
    this.rows.delete(key);
    return true;
  }

  counters(): HotFolderCounters {
    return { ...this.counts };
  }

  list(): HotFileRow[] {
    return [...this.rows.values()].map((row) => ({ ...row, outputs: [...row.outputs] }));
  }
}

// What one hot folder tells the app as it works: its file table (every row change is emitted as a
// 'file' event), its status (coalesced, see publishStatus) and its warnings.
import { RowTable } from './rows';
import type { HotFileRow, HotFileState, HotFolderCounters, HotFolderEvent, HotFolderStatus } from './types';
import { pathRow } from './runner-entry';

export interface FolderFeedDeps {
  folderId: string;
  emit(event: HotFolderEvent): void;
  now(): number;
  /** The folder's status as it is when the coalesced status event goes out. */
  status(): HotFolderStatus;
}

export class FolderFeed {
  private readonly rows = new RowTable();
  private statusScheduled = false;

  constructor(private readonly deps: FolderFeedDeps) {}

  counters(): HotFolderCounters {
    return this.rows.counters();
  }

  list(): HotFileRow[] {
    return this.rows.list();
  }

  getRow(key: string): HotFileRow | undefined {
    return this.rows.get(key);
  }

  newRow(path: string, relPath: string, state: HotFileState): HotFileRow {
    return pathRow(this.deps.folderId, path, relPath, state, this.deps.now());
  }

  putRow(key: string, row: HotFileRow): void {
    const published = this.rows.put(key, row);
    this.deps.emit({ type: 'file', folderId: this.deps.folderId, row: published });
    this.publishStatus();
  }

  dropRow(key: string): void {
    if (this.rows.delete(key)) this.publishStatus();
  }

  /** Folder events are coalesced to one per turn of the event loop: a thousand file changes make one. */
  publishStatus(): void {
    if (this.statusScheduled) return;
    this.statusScheduled = true;
    setImmediate(() => {
      this.statusScheduled = false;
      this.deps.emit({ type: 'folder', folderId: this.deps.folderId, status: this.deps.status() });
    });
  }

  warn(message: string): void {
    this.deps.emit({ type: 'warning', folderId: this.deps.folderId, message });
  }
}

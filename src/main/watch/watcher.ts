// File-system events for one input folder, through chokidar. The watcher only says "look at this
// path again"; whether a file is complete, wanted and new is decided by the folder runner, so a
// missed or doubled event costs nothing (the start-up scan and the periodic rescan back it up).
import { basename } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { isInside } from './config';
import { isTemporaryName } from './patterns';

export interface WatchOptions {
  recursive: boolean;
  /** Folders (absolute) whose contents are never reported. */
  excluded: readonly string[];
  usePolling: boolean;
  onFile(path: string): void;
  onRemove(path: string): void;
  onError(error: Error): void;
}

export interface FolderWatcher {
  close(): Promise<void>;
}

/** Starts watching; resolves once chokidar has set up its watches (events from then on are seen). */
export function watchFolder(root: string, options: WatchOptions): Promise<FolderWatcher> {
  const ignored = (path: string): boolean => {
    if (path === root) return false;
    if (options.excluded.some((dir) => isInside(path, dir))) return true;
    // Hidden names and temporary names: the rename to the real name arrives as a new file.
    return isTemporaryName(basename(path));
  };
  const watcher: FSWatcher = watch(root, {
    ignoreInitial: true,
    persistent: true,
    ignored,
    ...(options.recursive ? {} : { depth: 0 }),
    usePolling: options.usePolling,
    interval: 1000,
    binaryInterval: 1000,
  });
  watcher.on('add', (path) => options.onFile(path));
  watcher.on('change', (path) => options.onFile(path));
  watcher.on('unlink', (path) => options.onRemove(path));
  watcher.on('error', (error) => options.onError(error instanceof Error ? error : new Error(String(error))));
  return new Promise((resolve) => {
    watcher.once('ready', () => resolve({ close: () => watcher.close() }));
  });
}

// The start-up scan (and the periodic rescan): every file under the input folder, depth-first,
// without descending into the folders a hot folder writes to (done/, failed/, an output folder
// inside the input) or hidden folders. Streams entries with opendir, so a folder of ten thousand
// files is never held as one array of directory entries.
import { opendir } from 'node:fs/promises';
import { join } from 'node:path';

export interface ScanOptions {
  recursive: boolean;
  /** Absolute folder paths not to enter. */
  excluded: ReadonlySet<string>;
}

export async function* scanFiles(root: string, options: ScanOptions): AsyncGenerator<string> {
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let handle;
    try {
      handle = await opendir(dir, { bufferSize: 256 });
    } catch {
      continue; // removed meanwhile, or unreadable: the watcher reports what it can
    }
    for await (const entry of handle) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (options.recursive && !entry.name.startsWith('.') && !options.excluded.has(full)) stack.push(full);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        yield full;
      }
    }
  }
}

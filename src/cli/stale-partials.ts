// Leftovers of a `run` or `watch` killed while writing its outputs, removed when the next one
// starts in the same folder. Its own module so that `watch` does not load `run`'s code for it.
import { sweepStalePartials } from '@main/files/partial-files';

/** Leftovers of a run killed while writing into `dir` (see partial-files.ts), removed and counted. */
export async function removeStalePartials(dir: string, log: (m: string) => void): Promise<void> {
  const removed = await sweepStalePartials(dir);
  if (removed.length > 0) log(`removed ${removed.length} partial file${removed.length === 1 ? '' : 's'} left by an interrupted run in ${dir}`);
}

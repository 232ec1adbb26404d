// The outputs library a command keeps its outputs in, opened and started. Its folder is the one the
// app uses too (connection.ts libraryDirOf: FLOWDECK_LIBRARY_DIR, else the folder chosen in the
// app, else the data folder's). A library that cannot be used does not stop the command: the
// outputs still reach the output folder, and `unusable` is told why.
import { Library } from '../main/library';
import type { LibraryOptions } from '@main/library/library-options';

/**
 * A run waits for its own outputs: a few quick retries, then it downloads directly to --out and
 * leaves the library item to be resumed later (by the app, or by the next run's record).
 */
export const CLI_LIBRARY_RETRY = { maxAttempts: 3, baseMs: 300, maxMs: 3000 };

export async function openCliLibrary(
  options: Pick<LibraryOptions, 'store' | 'root' | 'source' | 'retry'>,
  unusable: (reason: string) => void,
): Promise<Library | null> {
  try {
    const library = await Library.open(options);
    await library.start();
    return library;
  } catch (error) {
    unusable(error instanceof Error ? error.message : String(error));
    return null;
  }
}

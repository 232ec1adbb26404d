// A job's output in the library: the library keeps every output of every job, so "Show in folder"
// works for a job card's output once its download is done. Found by a search for the file name (the
// index has it), then matched on the job and the exact name.
import { messageOf, type Api } from '../api';
import type { LibraryStore } from '../library/library.svelte';

export async function libraryIdOfOutput(api: Api, promptId: string, filename: string): Promise<number | null> {
  const { items } = await api.call('library.list', { query: filename, limit: 200 });
  const item = items.find((i) => i.promptId === promptId && i.fileName === filename && i.hasFile);
  return item ? item.id : null;
}

/**
 * "Show in folder" for a job's output (the viewer's and the Result stage's): the library's copy in
 * the file manager. Null when it was shown; otherwise what went wrong, in plain words.
 */
export async function showOutputInFolder(
  api: Api,
  library: LibraryStore,
  output: { promptId: string; name: string; libraryId: number | null },
): Promise<string | null> {
  try {
    const id = output.libraryId ?? (await libraryIdOfOutput(api, output.promptId, output.name));
    if (id === null) return `${output.name} is not in the library folder yet (it is still downloading, or the download failed).`;
    library.actionMessage = null;
    await library.reveal(id, 'folder');
    // reveal() reports a failure in the library's message line; it is said where it was asked.
    const failure = library.actionMessage as { text: string } | null;
    return failure ? failure.text : null;
  } catch (error) {
    return `The folder could not be shown: ${messageOf(error)}`;
  }
}

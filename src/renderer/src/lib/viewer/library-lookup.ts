// A job's output in the library: the library keeps every output of every job, so "Show in folder"
// works for a job card's output once its download is done. Found by a search for the file name (the
// index has it), then matched on the job and the exact name.
import type { Api } from '../api';

export async function libraryIdOfOutput(api: Api, promptId: string, filename: string): Promise<number | null> {
  const { items } = await api.call('library.list', { query: filename, limit: 200 });
  const item = items.find((i) => i.promptId === promptId && i.fileName === filename && i.hasFile);
  return item ? item.id : null;
}

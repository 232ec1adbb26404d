// Shared pieces of the library tests: a service client with quick retries, a file walker (the one
// in tests/support), the expected date folder of a time (computed here independently of the
// library's own code), a done index row for tests that fill the index directly, and a started
// library in a temporary folder.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Library } from '@main/library/library';
import { Store } from '@main/store/store';
import { ServiceClient } from '@main/service/client';
import type { NewItemRow } from '@main/library/library-index';
import type { ImportFileRequest } from '@main/library/import-file';
import type { ServerKind } from '@main/service/types';

export { filesUnder } from '../../support/files';

export function quickClient(kind: ServerKind, baseUrl: string, key: string | null, retries = 1): ServiceClient {
  return new ServiceClient({ kind, baseUrl }, { apiKey: () => key, retry: { retries, baseMs: 5, maxMs: 20 } });
}

export function dateFolder(ms: number): string {
  const d = new Date(ms);
  return [d.getFullYear(), String(d.getMonth() + 1).padStart(2, '0'), String(d.getDate()).padStart(2, '0')].join('/');
}

/** The library's quick retry policy for tests. */
export const QUICK_RETRY = { baseMs: 20, maxMs: 60, maxAttempts: 4 };

/** A done image row of a local server's job, for LibraryIndex.insert/insertMany; `fields` win. */
export function indexRow(fields: Pick<NewItemRow, 'promptId' | 'fileName' | 'promptText' | 'createdAt'> & Partial<NewItemRow>): NewItemRow {
  return {
    profileId: null,
    serverKind: 'local',
    baseUrl: 'http://b',
    workflow: null,
    workflowName: 'Bulk',
    nodeId: '9',
    nodeClass: 'SaveImage',
    outputKey: 'images',
    fileSubfolder: '',
    fileType: 'output',
    mediaKind: 'image',
    inputs: '{}',
    inputText: '',
    recordedAt: fields.createdAt,
    status: 'done',
    ...fields,
  };
}

export interface TempLibrary {
  dir: string;
  store: Store;
  library: Library;
  /** Disposes the library, closes the store and removes the folder. */
  close(): Promise<void>;
}

/** A started library (no download source) over a fresh store, in a fresh temporary folder whose name starts with `prefix`. */
export async function openTempLibrary(prefix: string): Promise<TempLibrary> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const store = await Store.open(join(dir, 'flowdeck.sqlite'));
  const library = await Library.open({ store, root: join(dir, 'library'), source: () => null });
  await library.start();
  return {
    dir,
    store,
    library,
    async close() {
      await library.dispose();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Library.importFile's request for the output file `path` of a local server's job, run at noon on 2026-11-28. */
export function importRequest(path: string, promptId: string, filename: string): ImportFileRequest {
  return {
    path,
    promptId,
    server: { profileId: 'local', kind: 'local', baseUrl: 'http://127.0.0.1:8188' },
    file: { node: '9', key: 'images', filename, subfolder: '', type: 'output' },
    workflow: null,
    workflowName: 'imports',
    sourceFile: null,
    createdAt: new Date(2026, 10, 28, 12).getTime(),
  };
}

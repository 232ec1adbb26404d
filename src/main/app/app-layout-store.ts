// Flowdeck's own store of the apps users arranged (the pinned inputs of a workflow, in order): one
// JSON file, apps.json, in the data folder. An API file cannot carry its app the way a UI file
// does (extra.linearData), so its app is kept here, beside it, keyed by the file's path, the
// workflow's content hash and its shape (node ids and classes), and found again in that order:
// the same content anywhere, the same file with the same graph (values edited), the same graph.
// The file is a trust boundary: validated on read; a damaged one is set aside, never lost, and
// each write goes through a partial file and a rename, so a crash leaves the old file or the new.
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { appInputSchema, type AppInputView, type AppLayoutKey } from '@shared/ipc/contract';
import { writeFileAtomically } from '@main/files/publish';

/** Apps kept at most; the least recently saved go first. */
export const MAX_KEPT_APPS = 1000;
const FILE_NAME = 'apps.json';

const recordSchema = z.object({
  path: z.string().max(4096).nullable(),
  contentHash: z.string().max(100),
  shape: z.string().max(100),
  inputs: z.array(appInputSchema).max(500),
  savedAt: z.number(),
});
type AppRecord = z.infer<typeof recordSchema>;
const fileSchema = z.object({ version: z.literal(1), apps: z.array(recordSchema).max(MAX_KEPT_APPS * 2) });

export interface KeptApp {
  inputs: AppInputView[];
  match: 'content' | 'path' | 'shape';
  savedAt: number;
}

export class AppLayoutStore {
  readonly #dir: string;
  readonly #now: () => number;
  readonly #log: (message: string) => void;
  readonly #limit: number;
  #records: AppRecord[] = [];
  /** Read once; every caller waits for the same reading (two reads would each start from nothing). */
  #loading: Promise<void> | null = null;
  /** Writes one after the other: the last one written holds every change. */
  #writing: Promise<void> = Promise.resolve();

  constructor(options: { dataDir: string; now?: () => number; log?: (message: string) => void; limit?: number }) {
    this.#dir = options.dataDir;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? (() => undefined);
    this.#limit = options.limit ?? MAX_KEPT_APPS;
  }

  get file(): string {
    return join(this.#dir, FILE_NAME);
  }

  #load(): Promise<void> {
    this.#loading ??= this.#read();
    return this.#loading;
  }

  async #read(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      // Not there yet: nothing kept. Another failure is the caller's to report (and read again next time).
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      this.#loading = null;
      throw error;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
    const parsed = fileSchema.safeParse(data);
    if (parsed.success) {
      this.#records = parsed.data.apps;
    } else {
      // Damaged or of another shape: set aside for the user, start empty.
      const aside = `${this.file}.damaged-${this.#now()}`;
      await copyFile(this.file, aside).catch(() => undefined);
      this.#log(`${this.file} could not be read as kept apps; it was set aside as ${aside}.`);
    }
  }

  /** The app kept for a workflow: the same content first, then the same file with the same graph, then the same graph. */
  async get(key: AppLayoutKey): Promise<KeptApp | null> {
    await this.#load();
    const records = this.#records;
    const newest = (list: AppRecord[]): AppRecord | undefined => list.reduce<AppRecord | undefined>((a, b) => (a && a.savedAt >= b.savedAt ? a : b), undefined);
    const byContent = newest(records.filter((r) => r.contentHash === key.contentHash));
    if (byContent) return { inputs: byContent.inputs, match: 'content', savedAt: byContent.savedAt };
    const byPath = key.path === null ? undefined : newest(records.filter((r) => r.path === key.path && r.shape === key.shape));
    if (byPath) return { inputs: byPath.inputs, match: 'path', savedAt: byPath.savedAt };
    const byShape = newest(records.filter((r) => r.shape === key.shape));
    return byShape ? { inputs: byShape.inputs, match: 'shape', savedAt: byShape.savedAt } : null;
  }

  /** Keeps the app of a workflow, replacing the one kept for that content or for that file's graph. */
  async keep(key: AppLayoutKey, inputs: readonly AppInputView[]): Promise<number> {
    await this.#load();
    // From here to the assignment nothing awaits: keeps made at once each start from the one before.
    const records = this.#records;
    const savedAt = Math.max(this.#now(), ...records.map((r) => r.savedAt + 1));
    const others = records.filter((r) => r.contentHash !== key.contentHash && !(key.path !== null && r.path === key.path && r.shape === key.shape));
    const next = [...others, { path: key.path, contentHash: key.contentHash, shape: key.shape, inputs: [...inputs], savedAt }]
      .sort((a, b) => b.savedAt - a.savedAt)
      .slice(0, this.#limit);
    this.#records = next;
    const text = `${JSON.stringify({ version: 1, apps: next }, null, 1)}\n`;
    const write = this.#writing.then(async () => {
      await mkdir(this.#dir, { recursive: true });
      await writeFileAtomically(this.file, text, { durable: true });
    });
    // A failed write fails this call; the next one starts afresh.
    this.#writing = write.catch(() => undefined);
    await write;
    return savedAt;
  }
}

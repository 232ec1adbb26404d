// Fast, real seeds for the benchmarks that need a big data folder (bench/startup.ts,
// bench/library-grid.ts): the app's own store file with its own migrations applied (Library,
// JobStore, WatchJournal open it), then filled in bulk:
//   - library items: one INSERT ... SELECT over a counter in SQLite itself, through the real
//     library_items table, so its triggers keep the FTS index and the id blocks as the app would
//     (a million rows in a minute or two instead of an hour of single inserts). Every item is
//     "done", its file one of a few hundred small real PNGs in the library folder (cycled), so
//     thumbnails are really made and served;
//   - finished jobs in the job journal, through JobStore in one transaction;
//   - saved hot folders (enabled, empty input folders) through the watch journal.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodePng } from '@main/demo/nodes/image-codec';
import { JobStore } from '@main/jobs/job-store';
import { LibraryIndex } from '@main/library/library-index';
import { Store } from '@main/store/store';
import { resolveHotFolderConfig } from '@main/watch/config';
import { WatchJournal } from '@main/watch/journal';
import { storedConfigText } from '@main/watch/service';

const DAY_MS = 86_400_000;
/** Digits of the item number in its file name (Bench_0000042_.png): sorts and names alike at a million. */
export const ITEM_DIGITS = 7;

export function itemFileName(n: number): string {
  return `Bench_${String(n).padStart(ITEM_DIGITS, '0')}_.png`;
}

/** A small real PNG with a colour gradient of its own, so every thumbnail differs. */
function picture(n: number): Uint8Array {
  const width = 96;
  const height = 72;
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const o = (y * width + x) * 4;
      data[o] = (x * 2 + n * 37) & 255;
      data[o + 1] = (y * 3 + n * 91) & 255;
      data[o + 2] = (n * 53) & 255;
      data[o + 3] = 255;
    }
  }
  return encodePng({ width, height, data });
}

export interface SeedPlan {
  /** Library items (item 0 is the newest; creation times spread over a year). */
  items: number;
  /** Distinct PNG files the items point at. */
  images?: number;
  /** Finished jobs in the job journal. */
  jobs?: number;
  /** Saved, enabled hot folders (their input folders under the data folder, empty). */
  hotFolders?: number;
}

/** Fills `dataDir`'s store (flowdeck.sqlite) and library folder as `plan` says. */
export async function seedDataDir(dataDir: string, plan: SeedPlan): Promise<void> {
  const root = join(dataDir, 'library');
  const folder = '2026/01/15';
  mkdirSync(join(root, ...folder.split('/')), { recursive: true });
  const images = plan.images ?? 300;
  const files = Array.from({ length: images }, (_, n) => {
    const bytes = picture(n);
    const name = `seed_${String(n).padStart(4, '0')}.png`;
    writeFileSync(join(root, ...folder.split('/'), name), bytes);
    return { k: n, path: `${folder}/${name}`, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  });

  const store = await Store.open(join(dataDir, 'flowdeck.sqlite'));
  try {
    const now = Date.now();
    await LibraryIndex.open(store);
    if (plan.items > 0) {
      await store.transaction(async (tx) => {
        await tx.exec('CREATE TEMP TABLE seed_files (k INTEGER PRIMARY KEY, path TEXT, size INTEGER, sha256 TEXT)');
        for (const f of files) await tx.run('INSERT INTO seed_files VALUES (?, ?, ?, ?)', [f.k, f.path, f.size, f.sha256]);
        await tx.run(
          `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
           INSERT INTO library_items (prompt_id, profile_id, server_kind, base_url, workflow, workflow_name, node_id, node_class,
             output_key, file_name, file_subfolder, file_type, media_kind, mime, size, width, height, sha256, path, root,
             inputs, input_text, prompt_text, created_at, recorded_at, completed_at, status)
           SELECT 'bench-job-' || i, 'demo', 'local', 'http://127.0.0.1:1', NULL, 'Bench workflow ' || (i % 12), '9', 'SaveImage',
             'images', printf('Bench_%0${ITEM_DIGITS}d_.png', i), '', 'output', 'image', 'image/png', f.size, 96, 72, f.sha256, f.path, ?,
             json_object('3', json_object('seed', i, 'prompt', 'bench item ' || i)), 'seed ' || i, 'bench item ' || i,
             ? - i * ?, ?, ?, 'done'
           FROM n JOIN seed_files f ON f.k = n.i % ?`,
          [plan.items, root, now, Math.floor((365 * DAY_MS) / plan.items), now, now, images],
        );
        await tx.exec('DROP TABLE seed_files');
      });
    }
    const jobCount = plan.jobs ?? 0;
    if (jobCount > 0) {
      const jobs = await JobStore.open(store, { now: () => now });
      await store.transaction(async () => {
        for (let i = 0; i < jobCount; i += 1) {
          const promptId = randomUUID();
          await jobs.recordSubmitted({
            promptId,
            profileId: 'bench-earlier-server',
            serverKind: 'local',
            baseUrl: 'http://127.0.0.1:1',
            workflow: { '9': { class_type: 'SaveImage', inputs: { filename_prefix: `bench ${i}` } } },
            workflowName: `Bench workflow ${i % 12}`,
            origin: 'window',
          });
          await jobs.recordEnd(promptId, {
            phase: i % 50 === 0 ? 'failed' : 'succeeded',
            rawStatus: 'success',
            progress: null,
            error: null,
            outputs: [{ node: '9', key: 'images', filename: itemFileName(i), subfolder: '', type: 'output' }],
          });
        }
      });
    }
    const folderCount = plan.hotFolders ?? 0;
    if (folderCount > 0) {
      const journal = await WatchJournal.open(store);
      for (let i = 0; i < folderCount; i += 1) {
        const inputDir = join(dataDir, 'hot', `in-${i}`);
        mkdirSync(inputDir, { recursive: true });
        const config = resolveHotFolderConfig(
          {
            name: `Bench folder ${i}`,
            inputDir,
            outputDir: join(dataDir, 'hot', `out-${i}`),
            workflow: {
              '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
              '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
              '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: `hot/${i}` } },
            },
            workflowName: 'invert.json',
            bind: '1.image',
          },
          randomUUID,
        );
        await journal.saveFolder(config.id, storedConfigText(config), now, false);
      }
      await journal.flushed();
    }
  } finally {
    await store.close();
  }
}

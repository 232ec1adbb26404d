// Restart reconciliation, in process and deterministic: the journal is written as a crashed run
// would have left it (files uploading, submitting with a recorded prompt id the server did or did
// not receive, submitted and finished meanwhile, submitted and forgotten by the server), and a new
// service must settle each one with the server without ever sending a file the server has.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { JobStore } from '@main/jobs/job-store';
import { Store } from '@main/store/store';
import { ServiceClient } from '@main/service/client';
import { stringifyJsonExact } from '@shared/json';
import { discoveredEntry, WatchJournal, type EntryRecord, type JournalState } from '@main/watch/journal';
import { folderInput, invertWorkflow, makePng, openHarness, until, type Harness } from './helpers';

let demo: DemoService;
let work: string;

beforeAll(async () => {
  demo = new DemoService({ flavour: 'local', timeScale: 0.05 });
  await demo.start();
  work = mkdtempSync(join(tmpdir(), 'flowdeck-watch-reconcile-'));
});

afterAll(async () => {
  await demo.stop();
  rmSync(work, { recursive: true, force: true });
});

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('restart reconciliation', () => {
  it('settles every journaled file with the server and sends none the server already has', async () => {
    const inDir = join(work, 'in');
    mkdirSync(inDir, { recursive: true });
    const folderId = 'reconcile-folder';
    const api = new ServiceClient({ kind: 'local', baseUrl: demo.url }, { apiKey: () => null });
    const files: Record<string, Buffer> = {};
    for (const [i, name] of ['resend', 'received', 'finished', 'forgotten', 'uploading', 'done'].entries()) {
      files[name] = makePng(500 + i);
      writeFileSync(join(inDir, `${name}.png`), files[name]!);
    }
    // What the crashed process had got through: two jobs the server accepted, each submitted once.
    const ids = { resend: randomUUID(), received: randomUUID(), finished: randomUUID(), forgotten: randomUUID() };
    for (const name of ['received', 'finished'] as const) {
      const uploaded = await api.uploadImage(join(inDir, `${name}.png`), { filename: `${name}-up.png` });
      const workflow = invertWorkflow();
      (workflow['1'] as { inputs: Record<string, unknown> }).inputs.image = uploaded.name;
      await api.submit(workflow, { clientId: randomUUID(), promptId: ids[name] });
    }

    const storePath = join(work, 'flowdeck.sqlite');
    const store = await Store.open(storePath);
    const journal = await WatchJournal.open(store);
    const now = Date.now();
    const record = (name: string, state: JournalState, promptId: string | null, uploadedAs: string | null = null): EntryRecord => ({
      ...discoveredEntry(
        {
          folderId,
          contentKey: sha(files[name]!),
          imageSha256: sha(files[name]!),
          maskSha256: null,
          path: join(inDir, `${name}.png`),
          relPath: `${name}.png`,
          maskPath: null,
        },
        now,
      ),
      state,
      promptId,
      serverKind: promptId ? 'local' : null,
      baseUrl: promptId ? demo.url : null,
      uploadedAs,
    });
    const partial: Harness = { inDir, outDir: join(work, 'out') } as Harness;
    await journal.saveFolder(folderId, stringifyJsonExact({ ...folderInput(partial), id: folderId, name: 'reconcile' }), now);
    await journal.saveEntry(record('resend', 'submitting', ids.resend));
    await journal.saveEntry(record('received', 'submitting', ids.received));
    await journal.saveEntry(record('finished', 'submitted', ids.finished, 'finished-up.png'));
    await journal.saveEntry(record('forgotten', 'submitted', ids.forgotten));
    await journal.saveEntry(record('uploading', 'uploading', null));
    await journal.saveEntry({ ...record('done', 'done', randomUUID()), outputs: [] });
    await store.close();

    const submissionsBefore = new Map(demo.stats.submissions);
    const h = await openHarness(demo, { storePath, work });
    try {
      await until(() => h.hot.list().length === 1 && h.hot.status(folderId).idle && h.hot.status(folderId).scanned, 'the saved folder settled', 15_000);
      const rows = new Map(h.hot.files(folderId).map((r) => [r.relPath, r]));
      expect(rows.get('resend.png')!.state).toBe('done');
      expect(rows.get('resend.png')!.promptId).toBe(ids.resend); // sent again under the SAME id
      expect(rows.get('received.png')!.state).toBe('done');
      expect(rows.get('received.png')!.promptId).toBe(ids.received);
      expect(rows.get('finished.png')!.state).toBe('done');
      expect(rows.get('forgotten.png')!.state).toBe('failed');
      expect(rows.get('forgotten.png')!.reason).toMatch(/no longer knows job/);
      expect(rows.get('uploading.png')!.state).toBe('done');
      expect(rows.get('done.png')!.state).toBe('done');

      // counted at the server: the two it had were never sent again, the others once each
      const fresh = [...demo.stats.submissions].filter(([id]) => !submissionsBefore.has(id));
      expect(demo.stats.submissions.get(ids.received)).toBe(1);
      expect(demo.stats.submissions.get(ids.finished)).toBe(1);
      expect(demo.stats.submissions.get(ids.resend)).toBe(1);
      expect(demo.stats.submissions.has(ids.forgotten)).toBe(false);
      expect(fresh.map(([id]) => id).sort()).toEqual([ids.resend, rows.get('uploading.png')!.promptId].sort());

      // outputs of the jobs found on the server were collected, with their own job id in the sidecar
      const sidecar = JSON.parse(readFileSync(join(work, 'out', 'finished_3_1.png.json'), 'utf8')) as { job: { prompt_id: string } };
      expect(sidecar.job.prompt_id).toBe(ids.finished);
      expect(existsSync(join(work, 'out', 'received_3_1.png'))).toBe(true);
      expect(existsSync(join(work, 'out', 'done_3_1.png'))).toBe(false);

      // the job journal knows each job the folder sent or found as the hot folder's (its origin
      // decides that the app leaves the outputs to the folder); a send found on the server keeps
      // no client id of ours (the earlier process's socket had its events)
      const jobs = await JobStore.open(h.store);
      for (const name of ['resend', 'received', 'uploading'] as const) {
        expect(await jobs.get(rows.get(`${name}.png`)!.promptId!), name).toMatchObject({ origin: 'hot-folder', serverKind: 'local' });
      }
      expect((await jobs.get(ids.received))?.clientId).toBeNull();
      expect(await jobs.get(ids.forgotten)).toBeNull();
    } finally {
      await h.close();
    }
  });
});

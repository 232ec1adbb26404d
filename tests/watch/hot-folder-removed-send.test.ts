// A hot folder removed while sends of it were unconfirmed (its job journal records still
// 'submitting': the app stopped, or the server never answered, between recording the id and the
// submit's answer). Nobody resends them any more, so the next start's reconciliation settles them
// as it settles any job: followed to its end when the server has it, ended as never submitted when
// not. Sends a folder still holds (an app folder still configured, a CLI folder, whose next
// `flowdeck watch` resumes them under the same ids) are left to their folder. Real demo service,
// real store file, the journal as the stopped app left it.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { JobStore } from '@main/jobs/job-store';
import { Store } from '@main/store/store';
import { JobTracker } from '@main/jobs/tracker';
import { ServiceClient } from '@main/service/client';
import { EventsSocket } from '@main/service/events-socket';
import type { ServerProfile } from '@main/service/types';
import { stringifyJsonExact } from '@shared/json';
import { heldUnconfirmedSends, WatchJournal } from '@main/watch/journal';
import { folderInput, invertWorkflow, makePng, openHarness, unconfirmedEntry } from './helpers';

let demo: DemoService;
let work: string;

beforeAll(async () => {
  demo = new DemoService({ flavour: 'local', timeScale: 0.05 });
  await demo.start();
  work = mkdtempSync(join(tmpdir(), 'flowdeck-watch-removed-'));
});

afterAll(async () => {
  await demo.stop();
  rmSync(work, { recursive: true, force: true });
});

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('the unconfirmed sends of a removed hot folder', () => {
  it('are settled at the next start (followed to the end, or never submitted); sends a folder still holds are left to it', async () => {
    const profile: ServerProfile = { kind: 'local', baseUrl: demo.url };
    const api = new ServiceClient(profile, { apiKey: () => null });
    const dirs = { removed: join(work, 'removed-in'), kept: join(work, 'kept-in'), cli: join(work, 'cli-in') };
    for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
    const folders = { removed: 'removed-folder', kept: 'kept-folder', cli: 'cli-0123456789abcdef' };
    const files = [
      { name: 'sent', folder: 'removed', seed: 801 },
      { name: 'lost', folder: 'removed', seed: 802 },
      { name: 'kept', folder: 'kept', seed: 803 },
      { name: 'cli', folder: 'cli', seed: 804 },
    ] as const;
    const ids = Object.fromEntries(files.map((f) => [f.name, randomUUID()])) as Record<(typeof files)[number]['name'], string>;

    // As the app left it: each file's id recorded (watch entry, then job journal) before its send;
    // only 'sent' reached the server (its answer was lost).
    const storePath = join(work, 'flowdeck.sqlite');
    const store = await Store.open(storePath);
    const journal = await WatchJournal.open(store);
    const jobs = await JobStore.open(store, { heldSends: () => heldUnconfirmedSends(store) });
    const now = Date.now();
    for (const key of ['removed', 'kept'] as const) {
      const input = { ...folderInput({ inDir: dirs[key], outDir: join(work, `${key}-out`) }), id: folders[key], name: key };
      await journal.saveFolder(folders[key], stringifyJsonExact(input), now, true);
    }
    for (const file of files) {
      const bytes = makePng(file.seed);
      const path = join(dirs[file.folder], `${file.name}.png`);
      writeFileSync(path, bytes);
      const entry = unconfirmedEntry({
        folderId: folders[file.folder],
        sha256: sha(bytes),
        path,
        relPath: `${file.name}.png`,
        promptId: ids[file.name],
        baseUrl: demo.url,
        uploadedAs: `${file.name}-up.png`,
        at: now,
      });
      await journal.saveEntry(entry);
      const workflow = invertWorkflow();
      (workflow['1'] as { inputs: Record<string, unknown> }).inputs.image = entry.uploadedAs;
      await jobs.recordSubmitting({
        promptId: ids[file.name],
        serverKind: 'local',
        baseUrl: demo.url,
        clientId: 'before-restart',
        workflow,
        workflowName: 'invert.json',
        origin: 'hot-folder',
      });
      if (file.name === 'sent') {
        await api.uploadImage(path, { filename: entry.uploadedAs! });
        await api.submit(workflow, { clientId: 'before-restart', promptId: ids.sent });
      }
    }
    await store.close();

    // The folder is removed in the app (its folders come back paused: nothing is sent meanwhile).
    const h = await openHarness(demo, { storePath, work });
    try {
      expect(
        h.hot
          .list()
          .map((f) => f.config.id)
          .sort(),
      ).toEqual([folders.kept, folders.removed]);
      // It names its files' jobs (the app settles those in flight at once; here the next start does).
      expect((await h.hot.remove(folders.removed)).sort()).toEqual([ids.sent, ids.lost].sort());
    } finally {
      await h.close();
    }

    // The next start: the tracker reconciles the job journal.
    const after = await Store.open(storePath);
    const events = new EventsSocket(profile, { apiKey: () => null, backoff: { minMs: 50, maxMs: 200 } });
    const journalAfter = await JobStore.open(after, { heldSends: () => heldUnconfirmedSends(after) });
    const tracker = new JobTracker({ api, events, jobs: journalAfter, pollIntervalMs: 100, timeoutMs: 15_000 });
    events.start();
    try {
      const results = await tracker.reconcile();
      expect(results.map((r) => r.promptId).sort()).toEqual([ids.sent, ids.lost].sort());
      expect(results.find((r) => r.promptId === ids.lost)).toMatchObject({ phase: 'failed', rawStatus: 'never_submitted' });
      const sent = await tracker.waitForEnd(ids.sent);
      expect(sent.phase).toBe('succeeded');
      expect(sent.outputs).toHaveLength(1);
      expect(await journalAfter.get(ids.sent)).toMatchObject({ phase: 'succeeded', origin: 'hot-folder' });
      expect(await journalAfter.get(ids.lost)).toMatchObject({ phase: 'failed', rawStatus: 'never_submitted' });
      // Still their folders' to settle (and to send again under the same id).
      expect((await journalAfter.listInFlight()).map((r) => [r.promptId, r.phase]).sort()).toEqual(
        [
          [ids.kept, 'submitting'],
          [ids.cli, 'submitting'],
        ].sort(),
      );
      expect(demo.stats.submissions.get(ids.sent)).toBe(1);
      for (const name of ['lost', 'kept', 'cli'] as const) expect(demo.stats.submissions.has(ids[name])).toBe(false);
    } finally {
      await tracker.dispose();
      await events.dispose();
      await after.close();
    }
  });
});

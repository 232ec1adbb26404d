// Removing a hot folder in the app settles its unconfirmed sends at once (job journal records
// 'submitting': the app stopped between recording a file's prompt id and the submit's answer):
// with the folder gone nobody sends them again, so the tracker settles them as any job, the one
// the server has followed to its end, the one it never got ended as never submitted. While the
// folder exists they stay its own (it resends them under the same id). A job of the folder that
// succeeded without the folder taking its outputs (it gave up collecting them, or the job ended
// while the folder stopped) has them recorded in the library. A real local demo service, the journal as the stopped app left it.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { JobStore } from '@main/jobs/job-store';
import { Store } from '@main/store/store';
import { ServiceClient } from '@main/service/client';
import { WatchJournal } from '@main/watch/journal';
import type { OutputFile } from '@main/service/types';
import { invertWorkflow, makePng, unconfirmedEntry, until } from '../watch/helpers';
import { ok } from '../support/demo-core';
import { poolAppFixture } from '../support/pool-app';

const app = poolAppFixture('flowdeck-hot-remove-core-');
let inDir = '';

beforeEach(() => {
  inDir = join(app.work, 'in');
  mkdirSync(inDir, { recursive: true });
});

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The latest job.update of a job, if any. */
const lastUpdate = (promptId: string): { phase: string; status: string; outputs: unknown[] } | undefined =>
  app
    .payloads('job.update')
    .filter((j) => j.promptId === promptId)
    .at(-1);

/**
 * A profile of the first server, selected, and a hot folder on it, paused so that the restarted app
 * leaves the journal's records of it alone until the folder is removed; the app stopped.
 */
async function pausedFolder(): Promise<{ gpu: { id: string }; folder: { id: string } }> {
  const c = await app.openCore();
  const gpu = await ok(c, 'profiles.save', { name: 'GPU', kind: 'local', baseUrl: app.first.url, select: true });
  const folder = await ok(c, 'hotFolders.save', {
    inputDir: inDir,
    outputDir: join(app.work, 'out'),
    workflowJson: JSON.stringify(invertWorkflow()),
    bind: '1.image',
    settleMs: 100,
  });
  await ok(c, 'hotFolders.pause', { id: folder.id });
  await c.dispose();
  return { gpu, folder };
}

describe('removing a hot folder in the app', () => {
  it('settles its unconfirmed sends at once: followed to the end when the server has one, never submitted when not', async () => {
    const { gpu, folder } = await pausedFolder();

    // As the app left it when it stopped: two files' ids recorded (watch entry, then job journal)
    // before their send; only 'sent' reached the server.
    const ids = { sent: randomUUID(), lost: randomUUID() };
    const api = new ServiceClient({ kind: 'local', baseUrl: app.first.url }, { apiKey: () => null });
    const store = await Store.open(join(app.dataDir, 'flowdeck.sqlite'));
    try {
      const journal = await WatchJournal.open(store);
      const jobs = await JobStore.open(store);
      const now = Date.now();
      for (const [name, seed] of [
        ['sent', 1001],
        ['lost', 1002],
      ] as const) {
        const bytes = makePng(seed);
        const path = join(inDir, `${name}.png`);
        writeFileSync(path, bytes);
        const uploadedAs = `${name}-up.png`;
        await journal.saveEntry(
          unconfirmedEntry({
            folderId: folder.id,
            sha256: sha(bytes),
            path,
            relPath: `${name}.png`,
            promptId: ids[name],
            baseUrl: app.first.url,
            uploadedAs,
            at: now,
          }),
        );
        const workflow = invertWorkflow();
        (workflow['1'] as { inputs: Record<string, unknown> }).inputs.image = uploadedAs;
        await jobs.recordSubmitting({
          promptId: ids[name],
          profileId: gpu.id,
          serverKind: 'local',
          baseUrl: app.first.url,
          clientId: 'before',
          workflow,
          workflowName: 'invert.json',
          origin: 'hot-folder',
        });
        if (name === 'sent') {
          await api.uploadImage(path, { filename: uploadedAs });
          await api.submit(workflow, { clientId: 'before', promptId: ids.sent });
        }
      }
    } finally {
      await store.close();
    }

    const c = await app.openCore();
    // The folder still holds its sends: the start's reconciliation leaves them to it.
    await until(() => app.payloads('hotFolders.changed').some((f) => f.id === folder.id && f.status.scanned), 'the paused folder scanned');
    await new Promise((r) => setTimeout(r, 500));
    expect(lastUpdate(ids.sent)).toBeUndefined();
    expect(lastUpdate(ids.lost)).toBeUndefined();

    await ok(c, 'hotFolders.remove', { id: folder.id });
    await until(() => lastUpdate(ids.lost)?.phase === 'failed' && lastUpdate(ids.sent)?.phase === 'succeeded', 'both sends settled', 20_000);
    expect(lastUpdate(ids.lost)).toMatchObject({ phase: 'failed', status: 'never_submitted' });
    expect(lastUpdate(ids.sent)?.outputs).toHaveLength(1);
    // With the folder gone nobody imports the sent job's output from its side: the library records it.
    await until(
      async () => (await ok(c, 'library.list')).items.some((i) => i.promptId === ids.sent && i.status === 'done'),
      'the output in the library',
      20_000,
    );
    await c.dispose();

    const after = await Store.open(join(app.dataDir, 'flowdeck.sqlite'));
    try {
      const jobs = await JobStore.open(after);
      expect(await jobs.get(ids.sent)).toMatchObject({ phase: 'succeeded', origin: 'hot-folder', libraryTakesOutputs: true });
      expect(await jobs.get(ids.lost)).toMatchObject({ phase: 'failed', rawStatus: 'never_submitted' });
      expect(app.first.stats.submissions.get(ids.sent)).toBe(1);
      expect(app.first.stats.submissions.has(ids.lost)).toBe(false);
    } finally {
      await after.close();
    }
  });

  it('records in the library the outputs of a job that succeeded without the folder taking them', async () => {
    const { gpu, folder } = await pausedFolder();

    // As a removal can find it: the job succeeded (its end journaled with its outputs, routed to the
    // folder), and the folder never took them: it gave up collecting them (here: its output folder
    // could not be written), or it was stopping for the removal when the job ended.
    const promptId = randomUUID();
    const api = new ServiceClient({ kind: 'local', baseUrl: app.first.url }, { apiKey: () => null });
    const store = await Store.open(join(app.dataDir, 'flowdeck.sqlite'));
    try {
      const journal = await WatchJournal.open(store);
      const jobs = await JobStore.open(store);
      const bytes = makePng(1003);
      const path = join(inDir, 'ended.png');
      writeFileSync(path, bytes);
      const uploadedAs = 'ended-up.png';
      await journal.saveEntry({
        ...unconfirmedEntry({
          folderId: folder.id,
          sha256: sha(bytes),
          path,
          relPath: 'ended.png',
          promptId,
          baseUrl: app.first.url,
          uploadedAs,
          at: Date.now(),
        }),
        state: 'failed',
        failedPhase: 'collect',
        attempts: 3,
        reason: 'Cannot write the output folder.',
      });
      const workflow = invertWorkflow();
      (workflow['1'] as { inputs: Record<string, unknown> }).inputs.image = uploadedAs;
      await jobs.recordSubmitting({
        promptId,
        profileId: gpu.id,
        serverKind: 'local',
        baseUrl: app.first.url,
        clientId: 'before',
        workflow,
        workflowName: 'invert.json',
        origin: 'hot-folder',
      });
      await api.uploadImage(path, { filename: uploadedAs });
      await api.submit(workflow, { clientId: 'before', promptId });
      let outputs: OutputFile[] = [];
      await until(async () => (outputs = (await api.getHistory(promptId))?.outputs ?? []).length > 0, 'the job done on the server', 20_000);
      await jobs.recordEnd(promptId, { phase: 'succeeded', rawStatus: 'success', progress: null, error: null, outputs });
    } finally {
      await store.close();
    }

    const c = await app.openCore();
    await until(() => app.payloads('hotFolders.changed').some((f) => f.id === folder.id && f.status.scanned), 'the paused folder scanned');
    expect((await ok(c, 'library.list')).items.some((i) => i.promptId === promptId)).toBe(false);
    await ok(c, 'hotFolders.remove', { id: folder.id });
    await until(
      async () => (await ok(c, 'library.list')).items.some((i) => i.promptId === promptId && i.status === 'done'),
      'the output in the library',
      20_000,
    );
    await c.dispose();
    expect(app.first.stats.submissions.get(promptId)).toBe(1);
  });
});

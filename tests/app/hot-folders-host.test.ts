// HotFoldersHost.owns(): after a restart the job tracker may report a hot folder's job ended
// (reconciled from the job journal) before the folders run again; the host knows those jobs from
// the hot-folder journal as soon as it exists, so the app does not record their outputs itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { HotFoldersHost } from '../../src/main/app/hot-folders-host';
import { Store } from '../../src/main/jobs/store';
import { WatchJournal } from '../../src/main/watch/journal';
import { until } from '../watch/helpers';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('knows the jobs an earlier run of the hot folders sent, before any folder runs', async () => {
  dir = mkdtempSync(join(tmpdir(), 'flowdeck-hot-owns-'));
  const path = join(dir, 'flowdeck.sqlite');
  const earlier = await Store.open(path);
  const journal = await WatchJournal.open(earlier);
  const entry = (contentKey: string, promptId: string | null, state: 'submitted' | 'done' | 'discovered') => ({
    folderId: 'f1', contentKey, imageSha256: contentKey, maskSha256: null, path: `/in/${contentKey}.png`, relPath: `${contentKey}.png`, maskPath: null,
    state, promptId, serverKind: 'local' as const, baseUrl: 'http://127.0.0.1:9', attempts: 1, reason: null, failedPhase: null, uploadedAs: null,
    outputs: [], createdAt: 1, updatedAt: 1,
  });
  await Promise.all([journal.saveEntry(entry('a', 'job-running', 'submitted')), journal.saveEntry(entry('b', 'job-done', 'done')), journal.saveEntry(entry('c', null, 'discovered'))]);
  await earlier.close();

  const store = await Store.open(path);
  const host = new HotFoldersHost({ store, library: () => null, emit: () => undefined, log: () => undefined, now: Date.now, dialogs: null, desktop: null });
  try {
    await until(() => host.owns('job-running'), 'the journal read');
    expect(host.owns('job-done')).toBe(true);
    expect(host.owns('job-of-the-app')).toBe(false);
  } finally {
    await host.dispose();
    await store.close();
  }
});

// HotFoldersHost.owns(): after a restart the job tracker may report a hot folder's job ended
// (reconciled from the job journal) before the folders run again; the host knows those jobs from
// the hot-folder journal as soon as it exists, so the app does not record their outputs itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { LatestWins } from '../../src/main/app/hot-folder-throttle';
import { jobProgress } from '../../src/main/app/hot-folder-views';
import { HotFoldersHost } from '../../src/main/app/hot-folders-host';
import type { JobSnapshot } from '../../src/main/jobs/types';
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

it('reports a running job\'s overall share done: finished nodes plus the current node\'s steps', () => {
  const snapshot = (nodesDone: number, nodesTotal: number | null, current: { value: number; max: number } | null): JobSnapshot => ({
    promptId: 'p', phase: 'running', rawStatus: 'running', trackedAt: 0, startedAt: 0, endedAt: null,
    nodes: current ? { '2': { state: 'running', ...current } } : {}, currentNode: current ? '2' : null,
    nodesTotal, nodesDone, cachedNodes: [], progressText: {}, latestPreview: null, outputs: [], error: null, workflowName: null, unreachable: null,
  });
  expect(jobProgress(null)).toBeNull();
  expect(jobProgress(snapshot(1, null, null))).toBeNull();
  expect(jobProgress(snapshot(1, 4, null))).toBe(0.25);
  expect(jobProgress(snapshot(1, 4, { value: 5, max: 10 }))).toBe(0.375);
  expect(jobProgress(snapshot(4, 4, { value: 10, max: 10 }))).toBe(1);
});

it('throttles per key, latest wins: the first value at once, the newest of a burst at the end of the interval', async () => {
  const sent: string[] = [];
  const throttle = new LatestWins<string>(150, (v) => sent.push(v));
  throttle.offer('a', 'a1');
  throttle.offer('a', 'a2');
  throttle.offer('a', 'a3');
  throttle.offer('b', 'b1');
  expect(sent).toEqual(['a1', 'b1']);
  await until(() => sent.length === 3, 'the held value');
  expect(sent).toEqual(['a1', 'b1', 'a3']);
  throttle.offer('a', 'a4');
  throttle.flush((key) => key === 'a');
  expect(sent.at(-1)).toBe('a4');
  throttle.offer('c', 'c1');
  throttle.offer('c', 'c2');
  throttle.clear();
  await new Promise((r) => setTimeout(r, 400));
  expect(sent).toEqual(['a1', 'b1', 'a3', 'a4', 'c1']);
});

// Restart reconciliation: the journal says some jobs were in flight when the app stopped; the
// tracker asks the server about each one and settles it. Real SQLite (in memory), fake server.
import { afterEach, describe, expect, it } from 'vitest';
import { JobStore, type NewJob } from '@main/jobs/job-store';
import { Store } from '@main/store/store';
import { JobTracker } from '@main/jobs/tracker';
import { discoveredEntry, heldUnconfirmedSends, WatchJournal, type EntryRecord } from '@main/watch/journal';
import { ServiceError } from '@main/service/errors';
import type { ServerKind } from '@main/service/types';
import { FakeApi, FakeClock, FakeEvents, file, reading } from './fakes';

const stores: Store[] = [];
const trackers: JobTracker[] = [];

afterEach(async () => {
  for (const tracker of trackers.splice(0)) await tracker.dispose();
  for (const store of stores.splice(0)) await store.close();
});

async function setup(kind: ServerKind) {
  const store = await Store.open(':memory:');
  stores.push(store);
  const jobs = await JobStore.open(store, { heldSends: () => heldUnconfirmedSends(store) });
  const api = new FakeApi(kind);
  const events = new FakeEvents('client-after-restart');
  const clock = new FakeClock();
  const tracker = new JobTracker({ api, events, jobs, clock, pollIntervalMs: 2000 });
  trackers.push(tracker);
  const job = (promptId: string, extra: Partial<NewJob> = {}): NewJob => ({
    promptId,
    serverKind: kind,
    baseUrl: api.profile.baseUrl,
    clientId: 'client-before-restart',
    workflow: { '1': { class_type: 'DemoSampler', inputs: {} }, '9': { class_type: 'SaveImage', inputs: {} } },
    workflowName: `${promptId}.json`,
    ...extra,
  });
  return { store, jobs, api, events, clock, tracker, job };
}

const notFound = (): ServiceError => new ServiceError('not_found', 'The server has no such resource for the job status (HTTP 404).', { status: 404 });

describe('JobTracker.reconcile on the cloud', () => {
  it("finishes, resumes or fails every in-flight job, and leaves other servers' jobs alone", async () => {
    const { jobs, api, clock, tracker, job } = await setup('cloud');
    await jobs.recordSubmitted(job('done'));
    await jobs.updatePhase('done', 'running', 'in_progress');
    await jobs.recordSubmitted(job('failed'));
    await jobs.recordSubmitted(job('running'));
    await jobs.recordSubmitting(job('never-sent'));
    await jobs.recordSubmitting(job('sent-before-crash'));
    await jobs.recordSubmitted(job('forgotten'));
    await jobs.recordSubmitted(job('elsewhere', { baseUrl: 'https://other.example' }));
    await jobs.recordSubmitted(job('finished-before'));
    await jobs.updatePhase('finished-before', 'succeeded', 'completed');

    api.statuses.set('done', reading('completed', 'succeeded'));
    api.histories.set('done', { reading: reading('success', 'succeeded'), outputs: [file('done-1.png'), file('done-2.png')] });
    api.statuses.set('failed', reading('failed', 'failed'));
    api.histories.set('failed', {
      reading: reading('error', 'failed'),
      outputs: [],
      error: {
        exceptionType: 'ModelDownloadError',
        exceptionMessage: 'model x.safetensors not found',
        nodeId: '1',
        nodeType: 'CheckpointLoader',
        traceback: [],
      },
    });
    api.statuses.set('running', reading('in_progress', 'running'));
    api.statuses.set('never-sent', notFound());
    api.statuses.set('sent-before-crash', reading('pending', 'pending'));
    api.statuses.set('forgotten', notFound());

    const results = await tracker.reconcile();
    const byId = Object.fromEntries(results.map((r) => [r.promptId, r]));
    expect(Object.keys(byId).sort()).toEqual(['done', 'failed', 'forgotten', 'never-sent', 'running', 'sent-before-crash']);

    expect(byId['done']).toMatchObject({ phase: 'succeeded', rawStatus: 'completed' });
    expect(byId['done']!.outputs.map((o) => o.filename)).toEqual(['done-1.png', 'done-2.png']);
    expect(byId['failed']).toMatchObject({ phase: 'failed', error: { exceptionType: 'ModelDownloadError', nodeId: '1' } });
    expect(byId['failed']!.error?.explanation).toMatch(/model/i);
    expect(byId['running']).toMatchObject({ phase: 'running', endedAt: null });
    expect(byId['sent-before-crash']).toMatchObject({ phase: 'pending', endedAt: null });
    expect(byId['never-sent']).toMatchObject({ phase: 'failed', rawStatus: 'never_submitted' });
    expect(byId['never-sent']!.error?.explanation).toMatch(/never reached the server/);
    expect(byId['forgotten']).toMatchObject({ phase: 'failed', rawStatus: 'lost' });
    expect(byId['forgotten']!.error?.explanation).toMatch(/no longer knows/);
    expect(byId['done']!.workflowName).toBe('done.json');
    expect(byId['done']!.nodesTotal).toBe(2);

    // The journal agrees; only the resumed jobs are still in flight, none is "submitting" any more.
    expect(await jobs.get('done')).toMatchObject({ phase: 'succeeded', rawStatus: 'completed' });
    expect((await jobs.get('done'))!.outputs).toHaveLength(2);
    expect((await jobs.get('failed'))!.error?.exceptionType).toBe('ModelDownloadError');
    expect(await jobs.get('never-sent')).toMatchObject({ phase: 'failed', rawStatus: 'never_submitted' });
    expect((await jobs.listInFlight()).map((j) => [j.promptId, j.phase])).toEqual([
      ['running', 'running'],
      ['sent-before-crash', 'pending'],
      ['elsewhere', 'pending'],
    ]);
    expect(api.calls).not.toContain('status elsewhere');
    expect(api.calls).not.toContain('status finished-before');

    // Resumed jobs are followed: here by polling, as no events come for them.
    api.statuses.set('running', reading('completed', 'succeeded'));
    api.histories.set('running', { reading: reading('success', 'succeeded'), outputs: [file('late.png')] });
    await clock.advance(10_000);
    const end = await tracker.waitForEnd('running');
    expect(end.outputs.map((o) => o.filename)).toEqual(['late.png']);
    expect((await jobs.get('running'))?.phase).toBe('succeeded');
  });

  it('leaves a send of this process still under way to its sender (a session starting while the first job is sent)', async () => {
    const { jobs, api, tracker, job } = await setup('cloud');
    // The server has not received it yet: asked now, it would say it has no such job.
    api.statuses.set('p', notFound());
    const during = await jobs.whileSending('p', async () => {
      await jobs.recordSubmitting(job('p'));
      expect(jobs.isBeingSent('p')).toBe(true);
      return tracker.reconcile();
    });
    expect(during).toEqual([]);
    expect(api.calls).not.toContain('status p');
    expect((await jobs.get('p'))?.phase).toBe('submitting');
    // Once the send is over (a crash left its row behind, say), the row is judged as before.
    expect(jobs.isBeingSent('p')).toBe(false);
    const [after] = await tracker.reconcile();
    expect(after).toMatchObject({ promptId: 'p', phase: 'failed', rawStatus: 'never_submitted' });
  });

  it('keeps a job it cannot check yet, and settles it once the server answers', async () => {
    const { jobs, api, clock, tracker, job, events } = await setup('cloud');
    await jobs.recordSubmitting(job('p'));
    events.state = 'offline';
    api.statuses.set('p', new ServiceError('network', 'Cannot reach the server.'));
    const [snap] = await tracker.reconcile();
    expect(snap).toMatchObject({ promptId: 'p', phase: 'pending', endedAt: null });
    expect((await jobs.get('p'))?.phase).toBe('submitting');
    api.statuses.set('p', notFound());
    await clock.advance(2000);
    const end = await tracker.waitForEnd('p');
    expect(end).toMatchObject({ phase: 'failed', rawStatus: 'never_submitted' });
  });
});

describe('JobTracker.reconcile on a local server', () => {
  it('decides from the queue and history, since a local server has no status endpoint', async () => {
    const { jobs, api, tracker, job } = await setup('local');
    await jobs.recordSubmitting(job('gone'));
    await jobs.recordSubmitted(job('queued'));
    await jobs.recordSubmitted(job('finished'));
    await jobs.recordSubmitted(job('restarted'));
    // The client derives a status word it cannot classify for a job the server does not list.
    for (const id of ['gone', 'queued', 'restarted']) api.statuses.set(id, { phase: 'running', raw: 'unknown', known: false });
    api.statuses.set('finished', notFound());
    api.queue = { running: [], pending: [{ promptId: 'queued', number: 4 }] };
    api.histories.set('finished', {
      reading: reading('error', 'failed'),
      outputs: [],
      error: { exceptionType: 'torch.OutOfMemoryError', exceptionMessage: 'CUDA out of memory', nodeId: '3', nodeType: 'KSampler', traceback: ['a', 'b'] },
    });

    const results = await tracker.reconcile();
    const byId = Object.fromEntries(results.map((r) => [r.promptId, r]));
    expect(byId['gone']).toMatchObject({ phase: 'failed', rawStatus: 'never_submitted' });
    expect(byId['queued']).toMatchObject({ phase: 'pending', endedAt: null });
    expect(byId['finished']).toMatchObject({ phase: 'failed', error: { exceptionType: 'torch.OutOfMemoryError', traceback: ['a', 'b'] } });
    expect(byId['finished']!.error?.explanation).toMatch(/GPU ran out of memory/);
    expect(byId['restarted']).toMatchObject({ phase: 'failed', rawStatus: 'lost' });
    expect((await jobs.listInFlight()).map((j) => j.promptId)).toEqual(['queued']);
  });

  it('polls a resumed local job even while connected: its events go to the old client id', async () => {
    const { jobs, api, clock, tracker, job } = await setup('local');
    await jobs.recordSubmitted(job('queued'));
    api.statuses.set('queued', reading('pending', 'pending'));
    api.queue = { running: [{ promptId: 'queued', number: 1 }], pending: [] };
    await tracker.reconcile();
    expect(tracker.get('queued')?.phase).toBe('running');
    const before = api.count('status');
    await clock.advance(2000);
    expect(api.count('status')).toBe(before + 1);
  });
});

describe('JobTracker.reconcile and hot folders', () => {
  it.each(['local', 'cloud'] as const)(
    "leaves a hot folder's unconfirmed send on %s to the folder, which may send it again under the same id; settles one no folder holds",
    async (kind) => {
      const { store, jobs, api, tracker, job } = await setup(kind);
      // The folder holds its send while its watch entry is 'submitting' under the id (a removed
      // folder's entries are gone, so its send is nobody's but the tracker's).
      const watch = await WatchJournal.open(store);
      await watch.saveEntry(watchEntry('folder-send', api.profile.baseUrl, kind));
      await jobs.recordSubmitting(job('folder-send', { origin: 'hot-folder' }));
      await jobs.recordSubmitting(job('folder-gone-send', { origin: 'hot-folder' }));
      await jobs.recordSubmitting(job('window-send', { origin: 'window' }));
      await jobs.recordSubmitted(job('folder-accepted', { origin: 'hot-folder' }));
      api.statuses.set('folder-send', notFound());
      api.statuses.set('folder-gone-send', notFound());
      api.statuses.set('window-send', notFound());
      api.statuses.set('folder-accepted', reading('pending', 'pending'));
      api.queue = { running: [], pending: [{ promptId: 'folder-accepted', number: 1 }] };

      const results = await tracker.reconcile();
      expect(results.map((r) => r.promptId).sort()).toEqual(['folder-accepted', 'folder-gone-send', 'window-send']);
      expect(tracker.get('folder-send')).toBeNull();
      expect(await jobs.get('folder-send')).toMatchObject({ phase: 'submitting', origin: 'hot-folder' });
      expect(await jobs.get('folder-gone-send')).toMatchObject({ phase: 'failed', rawStatus: 'never_submitted', origin: 'hot-folder' });
      expect(await jobs.get('window-send')).toMatchObject({ phase: 'failed', rawStatus: 'never_submitted' });
    },
  );
});

/** A hot folder's watch entry that recorded `promptId` before sending it. */
function watchEntry(promptId: string, baseUrl: string, kind: ServerKind): EntryRecord {
  const file = {
    folderId: 'folder',
    contentKey: `key-${promptId}`,
    imageSha256: `key-${promptId}`,
    maskSha256: null,
    path: `/in/${promptId}.png`,
    relPath: `${promptId}.png`,
    maskPath: null,
  };
  return { ...discoveredEntry(file, 1), state: 'submitting', promptId, serverKind: kind, baseUrl };
}

describe('JobTracker journal', () => {
  it('records a followed job and its phase, outputs and error as they happen', async () => {
    const { jobs, events, tracker } = await setup('local');
    const job = tracker.track('p', { workflow: { '1': { class_type: 'X', inputs: { seed: 18446744073709551615n } } }, workflowName: 'w.json' });
    events.emit({ type: 'execution_start', promptId: 'p' });
    events.emit({ type: 'executed', promptId: 'p', node: '1', output: { images: [{ filename: 'a.png', subfolder: '', type: 'output' }] } });
    events.emit({
      type: 'execution_error',
      promptId: 'p',
      nodeId: '1',
      nodeType: 'X',
      exceptionType: 'ExecutionBlocked',
      exceptionMessage: 'blocked by condition',
      traceback: [],
    });
    await job.waitForEnd();
    const record = await jobs.get('p');
    expect(record).toMatchObject({
      phase: 'failed',
      rawStatus: 'execution_error',
      clientId: 'client-after-restart',
      serverKind: 'local',
      workflowName: 'w.json',
      error: { exceptionType: 'ExecutionBlocked', message: 'blocked by condition' },
      progress: { nodesDone: 0, nodesTotal: 1, currentNode: null },
    });
    expect(record!.outputs.map((o) => o.filename)).toEqual(['a.png']);
    expect((record!.workflow!['1'] as { inputs: { seed: unknown } }).inputs.seed).toBe(18446744073709551615n);
    expect(record!.endedAt).not.toBeNull();
  });
});

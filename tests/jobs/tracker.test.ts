import { afterEach, describe, expect, it } from 'vitest';
import { JobTimeoutError, JobTracker, type JobTrackerDeps } from '@main/jobs/tracker';
import type { JobSnapshot } from '@main/jobs/types';
import type { ServerEvent, Workflow } from '@main/service/types';
import { FakeApi, FakeClock, FakeEvents, deferred, file, flush, reading } from './fakes';

const P = 'aaaaaaaa-0000-4000-8000-000000000001';
const Q = 'bbbbbbbb-0000-4000-8000-000000000002';

const WORKFLOW: Workflow = {
  '1': { class_type: 'DemoSampler', inputs: { seed: 1 } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '9': { class_type: 'SaveImage', inputs: { images: ['2', 0] } },
};

const trackers: JobTracker[] = [];

function setup(overrides: Partial<JobTrackerDeps> & { kind?: 'cloud' | 'local' } = {}) {
  const clock = new FakeClock();
  const events = new FakeEvents();
  const api = new FakeApi(overrides.kind ?? 'cloud');
  const tracker = new JobTracker({ api, events, clock, pollIntervalMs: 2000, ...overrides });
  trackers.push(tracker);
  const updates: JobSnapshot[] = [];
  tracker.onUpdate((s) => updates.push(s));
  const warnings: string[] = [];
  tracker.onWarning((w) => warnings.push(w));
  return { clock, events, api, tracker, updates, warnings };
}

afterEach(async () => {
  for (const tracker of trackers.splice(0)) await tracker.dispose();
});

/** Updates that show the job as ended: must be exactly one per job. */
function endings(updates: JobSnapshot[], promptId: string): JobSnapshot[] {
  const out: JobSnapshot[] = [];
  let ended = false;
  for (const u of updates) {
    if (u.promptId !== promptId) continue;
    if (u.endedAt !== null && !ended) out.push(u);
    if (u.endedAt !== null) ended = true;
  }
  return out;
}

const start = (promptId = P): ServerEvent[] => [
  { type: 'execution_start', promptId },
  { type: 'execution_cached', promptId, nodes: [] },
];

function preview(promptId: string | null, byte: number, frameType: 1 | 4 = 1): ServerEvent {
  return {
    type: 'preview',
    frameType,
    promptId,
    nodeId: frameType === 4 ? '1' : null,
    displayNodeId: null,
    mime: 'image/jpeg',
    bytes: new Uint8Array([0xff, 0xd8, 0xff, byte]),
  };
}

describe('JobTracker, following by events', () => {
  it('ends a job on execution_success with the outputs of every executed event, without duplicates', async () => {
    const { events, api, tracker, updates } = setup();
    const job = tracker.track(P, { workflow: WORKFLOW, workflowName: 'demo' });
    expect(job.snapshot()).toMatchObject({ phase: 'pending', nodesTotal: 3, nodesDone: 0 });
    events.emit(
      ...start(),
      { type: 'progress_state', promptId: P, nodes: { '1': { value: 0, max: 4, state: 'running' } } },
      { type: 'executing', promptId: P, node: '1' },
      { type: 'progress', promptId: P, node: '1', value: 2, max: 4 },
    );
    expect(tracker.get(P)).toMatchObject({ phase: 'running', currentNode: '1', nodes: { '1': { state: 'running', value: 2, max: 4 } } });
    expect(events.expecting).toEqual([true]);
    events.emit(
      { type: 'executing', promptId: P, node: '2' },
      { type: 'executing', promptId: P, node: '9' },
      {
        type: 'executed',
        promptId: P,
        node: '9',
        output: {
          images: [
            { filename: 'a.png', subfolder: '', type: 'output' },
            { filename: 'b.png', subfolder: '', type: 'output' },
          ],
          animated: [false],
        },
      },
      // A second output node reporting one of the same files, plus a video under another key.
      {
        type: 'executed',
        promptId: P,
        node: '10',
        output: { images: [{ filename: 'a.png', subfolder: '', type: 'output' }], videos: [{ filename: 'c.mp4', subfolder: '', type: 'output' }] },
      },
      { type: 'execution_success', promptId: P },
      { type: 'executing', promptId: P, node: null },
    );
    const end = await job.waitForEnd();
    expect(end.phase).toBe('succeeded');
    expect(end.rawStatus).toBe('execution_success');
    expect(end.outputs.map((o) => [o.filename, o.node, o.key])).toEqual([
      ['a.png', '9', 'images'],
      ['b.png', '9', 'images'],
      ['c.mp4', '10', 'videos'],
    ]);
    expect(end.nodesDone).toBe(3);
    expect(end.currentNode).toBeNull();
    expect(end.error).toBeNull();
    expect(end.workflowName).toBe('demo');
    // No gap, so no need to ask the server anything.
    expect(api.calls).toEqual([]);
    expect(endings(updates, P)).toHaveLength(1);
    expect(events.expecting).toEqual([true, false]);
  });

  it('handles a job served from cache (no per-node executing)', async () => {
    const { events, tracker } = setup();
    const job = tracker.track(P, { workflow: WORKFLOW });
    events.emit(
      { type: 'execution_start', promptId: P },
      { type: 'execution_cached', promptId: P, nodes: ['1', '2', '9'] },
      { type: 'executed', promptId: P, node: '9', output: { images: [{ filename: 'x.png', subfolder: 'samples', type: 'output' }] } },
      { type: 'progress_state', promptId: P, nodes: { '9': { value: 1, max: 1, state: 'finished' } } },
      { type: 'execution_success', promptId: P },
    );
    const end = await job.waitForEnd();
    expect(end).toMatchObject({ phase: 'succeeded', cachedNodes: ['1', '2', '9'], nodesDone: 3, nodesTotal: 3 });
    expect(end.nodes['9']?.state).toBe('cached');
    expect(end.outputs).toEqual([{ filename: 'x.png', subfolder: 'samples', type: 'output', node: '9', key: 'images' }]);
  });

  it('replays events that arrived before track() (a cached job can end before submit returns)', async () => {
    const { events, api, tracker } = setup();
    events.emit(
      { type: 'execution_start', promptId: P },
      { type: 'execution_cached', promptId: P, nodes: ['1', '2', '9'] },
      { type: 'executed', promptId: P, node: '9', output: { images: [{ filename: 'x.png', subfolder: '', type: 'output' }] } },
      { type: 'execution_success', promptId: P },
    );
    const job = tracker.track(P);
    expect(job.snapshot().phase).toBe('succeeded');
    expect((await job.waitForEnd()).outputs.map((o) => o.filename)).toEqual(['x.png']);
    expect(api.calls).toEqual([]);
  });

  it('fails a job with a plain-language explanation of its exception type', async () => {
    const { events, tracker } = setup();
    const job = tracker.track(P, { workflow: WORKFLOW });
    events.emit(
      ...start(),
      { type: 'executing', promptId: P, node: '1' },
      {
        type: 'execution_error',
        promptId: P,
        nodeId: '1',
        nodeType: 'KSampler',
        exceptionType: 'OOMError',
        exceptionMessage: 'CUDA out of memory. Tried to allocate 2.00 GiB',
        traceback: ['  File "execution.py", line 1\n'],
      },
    );
    const end = await job.waitForEnd();
    expect(end.phase).toBe('failed');
    expect(end.error).toMatchObject({
      exceptionType: 'OOMError',
      message: 'CUDA out of memory. Tried to allocate 2.00 GiB',
      nodeId: '1',
      nodeType: 'KSampler',
      traceback: ['  File "execution.py", line 1\n'],
    });
    expect(end.error?.explanation).toMatch(/GPU ran out of memory/);
    expect(end.nodes['1']?.state).toBe('error');
  });

  it('turns execution_interrupted into cancelled', async () => {
    const { events, tracker } = setup();
    const job = tracker.track(P);
    events.emit(...start(), { type: 'execution_interrupted', promptId: P, nodeId: '1', nodeType: 'DemoSampler' });
    const end = await job.waitForEnd();
    expect(end).toMatchObject({ phase: 'cancelled', rawStatus: 'execution_interrupted', error: null });
  });

  it('ignores events of other jobs and duplicate terminal events', async () => {
    const { events, tracker, updates } = setup();
    const job = tracker.track(P);
    events.emit(...start(Q), {
      type: 'execution_error',
      promptId: Q,
      nodeId: '1',
      nodeType: 'X',
      exceptionType: 'RuntimeError',
      exceptionMessage: 'no',
      traceback: [],
    });
    expect(tracker.get(P)?.phase).toBe('pending');
    events.emit(...start(), { type: 'execution_success', promptId: P }, { type: 'execution_success', promptId: P });
    events.emit({ type: 'execution_error', promptId: P, nodeId: '1', nodeType: 'X', exceptionType: 'RuntimeError', exceptionMessage: 'late', traceback: [] });
    const end = await job.waitForEnd();
    expect(end.phase).toBe('succeeded');
    expect(end.error).toBeNull();
    expect(endings(updates, P)).toHaveLength(1);
  });
});

describe('JobTracker, previews and progress text', () => {
  it('attributes type-1 previews and TEXT frames to the job executing on this socket', async () => {
    const { events, tracker } = setup();
    const seen: Array<[string, number]> = [];
    tracker.onPreview((p) => seen.push([p.promptId, p.bytes[3]!]));
    tracker.track(P);
    tracker.track(Q);
    events.emit(...start(P), { type: 'executing', promptId: P, node: '1' }, preview(null, 1));
    events.emit({ type: 'progress_text', nodeId: '1', text: 'step 1 of 2' });
    // A type-4 frame names its job even while another runs (the cloud runs a user's jobs side by side).
    events.emit(preview(Q, 2, 4));
    events.emit({ type: 'execution_success', promptId: P }, { type: 'executing', promptId: P, node: null });
    // P is over; Q is the one job of ours still running, so an anonymous frame is its.
    events.emit(preview(null, 3));
    events.emit({ type: 'executing', promptId: Q, node: '1' }, preview(null, 4));
    expect(seen).toEqual([
      [P, 1],
      [Q, 2],
      [Q, 3],
      [Q, 4],
    ]);
    expect(tracker.get(P)?.progressText).toEqual({ '1': 'step 1 of 2' });
    expect(tracker.get(Q)?.progressText).toEqual({});
    expect(tracker.get(Q)?.latestPreview?.bytes[3]).toBe(4);
    expect(tracker.get(Q)?.latestPreview?.nodeId).toBe('1');
  });

  it("does not hand a preview of someone else's running job to ours", () => {
    const { events, tracker } = setup();
    const seen: string[] = [];
    tracker.onPreview((p) => seen.push(p.promptId));
    tracker.track(P); // still queued behind another user's job
    events.emit({ type: 'progress', promptId: Q, node: '3', value: 1, max: 2 }, preview(null, 9));
    // Their job ends; ours is not running yet, so an anonymous frame is still nobody's.
    events.emit({ type: 'execution_success', promptId: Q }, preview(null, 10));
    expect(seen).toEqual([]);
    expect(tracker.get(P)?.latestPreview).toBeNull();
    events.emit(...start(P), preview(null, 11));
    expect(seen).toEqual([P]);
  });

  it('keeps only the latest preview', async () => {
    const { events, tracker } = setup();
    let count = 0;
    tracker.onPreview(() => (count += 1));
    const job = tracker.track(P);
    events.emit(...start());
    for (let i = 0; i < 50; i += 1) events.emit(preview(null, i));
    expect(count).toBe(50);
    const snap = job.snapshot();
    expect(snap.latestPreview?.bytes).toEqual(new Uint8Array([0xff, 0xd8, 0xff, 49]));
    expect(snap.latestPreview?.mime).toBe('image/jpeg');
    expect(Object.keys(snap).filter((k) => /preview/i.test(k))).toEqual(['latestPreview']);
  });
});

describe('JobTracker, polling', () => {
  it('polls when the socket drops mid-job and recovers the missed outputs from history', async () => {
    const { clock, events, api, tracker, updates } = setup();
    const job = tracker.track(P, { workflow: WORKFLOW });
    events.emit(...start(), { type: 'executed', promptId: P, node: '9', output: { images: [{ filename: 'a.png', subfolder: '', type: 'output' }] } });
    expect(api.count('status')).toBe(0);

    api.statuses.set(P, reading('in_progress', 'running'));
    events.setState('reconnecting');
    await clock.advance(0);
    expect(api.count('status')).toBe(1);
    await clock.advance(2000);
    expect(api.count('status')).toBe(2);
    await clock.advance(2000);
    expect(api.count('status')).toBe(3);
    expect(tracker.get(P)?.phase).toBe('running');

    // The job ends while we are offline: the status says so, history has what we missed.
    api.statuses.set(P, reading('completed', 'succeeded'));
    api.histories.set(P, { reading: reading('success', 'succeeded'), outputs: [file('a.png'), file('b.png', '10')] });
    await clock.advance(2000);
    const end = await job.waitForEnd();
    expect(end).toMatchObject({ phase: 'succeeded', rawStatus: 'completed' });
    expect(end.outputs.map((o) => o.filename)).toEqual(['a.png', 'b.png']);
    expect(api.count('history')).toBe(1);
    // The socket comes back and the late terminal event changes nothing.
    events.setState('connected');
    events.emit({ type: 'execution_success', promptId: P });
    await clock.advance(10_000);
    expect(endings(updates, P)).toHaveLength(1);
    expect(api.count('status')).toBe(4);
  });

  it('asks history after a socket gap even when the end arrives as an event', async () => {
    const { clock, events, api, tracker } = setup();
    const job = tracker.track(P);
    events.emit(...start());
    api.statuses.set(P, reading('in_progress', 'running'));
    events.setState('silent');
    await clock.advance(0);
    events.setState('connected');
    api.histories.set(P, { reading: reading('success', 'succeeded'), outputs: [file('missed.png')] });
    events.emit({ type: 'execution_success', promptId: P });
    const end = await job.waitForEnd();
    expect(end.outputs.map((o) => o.filename)).toEqual(['missed.png']);
  });

  it('ends once when the terminal status comes first and the event arrives during the history fetch', async () => {
    const { clock, events, api, tracker, updates } = setup();
    const job = tracker.track(P);
    events.emit(...start());
    events.setState('offline');
    api.statuses.set(P, reading('failed', 'failed', 'worker lost'));
    const history = deferred<null>();
    api.histories.set(P, () => history.promise);
    await clock.advance(0);
    expect(api.count('history')).toBe(1);
    expect(tracker.get(P)?.endedAt).toBeNull();
    // The socket was back just long enough to deliver the detailed error.
    events.emit({
      type: 'execution_error',
      promptId: P,
      nodeId: '1',
      nodeType: 'PartnerNode',
      exceptionType: 'InsufficientFundsError',
      exceptionMessage: 'balance too low',
      traceback: [],
    });
    events.emit({ type: 'execution_success', promptId: P });
    history.resolve(null);
    await clock.advance(2000);
    const end = await job.waitForEnd();
    expect(end.phase).toBe('failed');
    expect(end.error).toMatchObject({ exceptionType: 'InsufficientFundsError', message: 'balance too low' });
    expect(end.error?.explanation).toMatch(/credits/);
    expect(endings(updates, P)).toHaveLength(1);
  });

  it('uses the status error message when neither events nor history explain a failure', async () => {
    const { clock, events, api, tracker } = setup();
    const job = tracker.track(P);
    events.setState('offline');
    api.statuses.set(P, reading('non_retryable_error', 'failed', 'The workflow could not be dispatched'));
    await clock.advance(0);
    await clock.advance(1000); // history retries: the server has none
    const end = await job.waitForEnd();
    expect(end).toMatchObject({ phase: 'failed', rawStatus: 'non_retryable_error' });
    expect(end.error).toMatchObject({ exceptionType: null, message: 'The workflow could not be dispatched' });
    expect(api.count('history')).toBe(3);
  });

  it('polls a job that has been quiet for a while although the socket is connected', async () => {
    const { clock, events, api, tracker } = setup({ staleAfterMs: 10_000 });
    const job = tracker.track(P);
    events.emit(...start());
    await clock.advance(8_000);
    expect(api.count('status')).toBe(0);
    api.statuses.set(P, reading('cancelled', 'cancelled'));
    await clock.advance(4_000);
    expect(api.count('status')).toBe(1);
    expect((await job.waitForEnd()).phase).toBe('cancelled');
  });

  it('keeps polling through failed polls and reports them as warnings', async () => {
    const { clock, events, api, tracker, warnings } = setup();
    const job = tracker.track(P);
    events.setState('offline');
    api.statuses.set(P, new Error('connect ECONNREFUSED 127.0.0.1:8188'));
    await clock.advance(4000);
    expect(warnings.some((w) => w.includes('ECONNREFUSED'))).toBe(true);
    api.statuses.set(P, reading('success', 'succeeded'));
    await clock.advance(2000);
    await clock.advance(1000);
    expect((await job.waitForEnd()).phase).toBe('succeeded');
  });

  it('stops waiting at the timeout without ending the job', async () => {
    const { clock, events, tracker } = setup({ timeoutMs: 30_000 });
    const job = tracker.track(P);
    events.emit(...start());
    const waiting = job.waitForEnd();
    const outcome = waiting.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await clock.advance(30_000);
    const error = await outcome;
    expect(error).toBeInstanceOf(JobTimeoutError);
    expect(String((error as Error).message)).toMatch(/not cancelled/);
    expect(tracker.get(P)?.endedAt).toBeNull();
    // Following goes on: the job can still end and be waited for (without a limit).
    events.emit({ type: 'execution_success', promptId: P });
    expect((await job.waitForEnd({ timeoutMs: null })).phase).toBe('succeeded');
  });

  it('releases timers and socket listeners on dispose', async () => {
    const { clock, events, tracker } = setup();
    const job = tracker.track(P);
    const waiting = job.waitForEnd().catch((e: unknown) => e);
    events.emit(...start());
    await tracker.dispose();
    expect(String(await waiting)).toMatch(/shut down/);
    expect(events.listenerCount).toBe(0);
    expect(clock.pending).toBe(0);
    await flush();
  });
});

describe('cancellation requested by the user', () => {
  it('a local job the server forgot after our cancel ends as cancelled, promptly, not as lost', async () => {
    const { clock, api, tracker, updates } = setup({ kind: 'local' });
    tracker.track(P, { workflow: WORKFLOW });
    // A deleted pending job: in no queue and with no history on a local server.
    api.statuses.set(P, { phase: 'running', raw: 'unknown', known: false });
    tracker.noteCancelRequested(P);
    await clock.advance(300);
    expect(tracker.get(P)).toMatchObject({ phase: 'cancelled', rawStatus: 'cancelled' });
    expect(endings(updates, P)).toHaveLength(1);
  });

  it('a local job seen waiting that vanishes without our cancel was deleted by another client: cancelled, not failed', async () => {
    const { clock, api, tracker } = setup({ kind: 'local' });
    tracker.track(P, { workflow: WORKFLOW });
    api.statuses.set(P, { phase: 'pending', raw: 'pending', known: true });
    await clock.advance(60_000);
    expect(tracker.get(P)).toMatchObject({ phase: 'pending' });
    api.statuses.set(P, { phase: 'running', raw: 'unknown', known: false });
    await clock.advance(60_000);
    expect(tracker.get(P)).toMatchObject({
      phase: 'cancelled',
      rawStatus: 'cancelled',
      error: { message: 'Removed from the queue before it started.', explanation: expect.stringMatching(/cancelled by another client/) },
    });
  });

  it('without a cancel request the same answer means the job was lost', async () => {
    const { clock, api, tracker } = setup({ kind: 'local' });
    tracker.track(P, { workflow: WORKFLOW });
    api.statuses.set(P, { phase: 'running', raw: 'unknown', known: false });
    await clock.advance(60_000);
    expect(tracker.get(P)).toMatchObject({ phase: 'failed', rawStatus: 'lost' });
  });
});

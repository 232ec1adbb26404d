import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJsonExact } from '@shared/json';
import { JobJournal } from '@main/jobs/job-journal';
import { JobState } from '@main/jobs/job-state';
import { JobStore } from '@main/jobs/job-store';
import { Store } from '@main/store/store';
import type { Workflow } from '@main/service/types';
import type { ServiceApi } from '@main/service/ports';
import { submitJobV2 } from '@main/jobs/submit-v2';

let dir: string;
let store: Store | null = null;
let clock = 1_000;
const now = (): number => clock;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-jobstore-'));
  clock = 1_000;
});

afterEach(async () => {
  await store?.close();
  store = null;
  await rm(dir, { recursive: true, force: true });
});

const SEED = 18446744073709551615n; // 2^64-1: beyond a JavaScript number

function workflow(): Workflow {
  const parsed = parseJsonExact(
    `{"3":{"class_type":"DemoSampler","inputs":{"seed":${SEED},"steps":4}},"9":{"class_type":"SaveImage","inputs":{"images":["3",0],"filename_prefix":"x"}}}`,
  );
  return parsed as Workflow;
}

const base = { serverKind: 'local' as const, baseUrl: 'http://127.0.0.1:8188', clientId: 'c-1', profileId: 'p-1' };

describe('JobStore', () => {
  it('round-trips a job with a 64-bit seed through a reopened file', async () => {
    const path = join(dir, 'flowdeck.db');
    store = await Store.open(path);
    let jobs = await JobStore.open(store, { now });
    await jobs.recordSubmitted({ ...base, promptId: 'p1', workflow: workflow(), workflowName: 'demo.json', number: 3 });
    clock = 2_000;
    await jobs.updatePhase('p1', 'running', 'in_progress', { nodesDone: 1, nodesTotal: 2, currentNode: '3' });
    const file = { filename: 'a.png', subfolder: '', type: 'output', node: '9', key: 'images' };
    expect(await jobs.addOutputs('p1', [file, file])).toBe(1);
    expect(await jobs.addOutputs('p1', [file, { ...file, filename: 'b.png' }])).toBe(1);
    clock = 3_000;
    await jobs.updatePhase('p1', 'succeeded', 'success');
    await store.close();

    store = await Store.open(path);
    jobs = await JobStore.open(store, { now });
    const record = await jobs.get('p1');
    expect(record).not.toBeNull();
    const seed = (record!.workflow!['3'] as { inputs: { seed: unknown } }).inputs.seed;
    expect(seed).toBe(SEED);
    expect(record).toMatchObject({
      promptId: 'p1',
      profileId: 'p-1',
      serverKind: 'local',
      baseUrl: 'http://127.0.0.1:8188',
      clientId: 'c-1',
      workflowName: 'demo.json',
      phase: 'succeeded',
      rawStatus: 'success',
      number: 3,
      createdAt: 1_000,
      updatedAt: 3_000,
      endedAt: 3_000,
      error: null,
      progress: { nodesDone: 1, nodesTotal: 2, currentNode: '3' },
    });
    expect(record!.outputs.map((o) => o.filename)).toEqual(['a.png', 'b.png']);
    expect(await jobs.listInFlight()).toEqual([]);
  });

  it('records a job before sending it, then moves it on when the server accepts it', async () => {
    store = await Store.open(':memory:');
    const jobs = await JobStore.open(store, { now });
    await jobs.recordSubmitting({ ...base, promptId: 'p2', workflow: workflow() });
    expect((await jobs.listInFlight()).map((j) => [j.promptId, j.phase])).toEqual([['p2', 'submitting']]);
    clock = 1_500;
    await jobs.recordSubmitted({ ...base, promptId: 'p2', number: 7 });
    const record = await jobs.get('p2');
    expect(record).toMatchObject({ phase: 'pending', rawStatus: 'submitted', number: 7, createdAt: 1_000, updatedAt: 1_500 });
    // A late recordSubmitted does not drag an ended job back.
    await jobs.updatePhase('p2', 'failed', 'error');
    await jobs.recordSubmitted({ ...base, promptId: 'p2' });
    expect((await jobs.get('p2'))?.phase).toBe('failed');
  });

  it('a v2 send journaled under its key: the answer moves the row on in one write, the intent kept exactly', async () => {
    store = await Store.open(':memory:');
    const jobs = await JobStore.open(store, { now });
    const sent: Array<{ key: string | undefined; journaled: string | undefined }> = [];
    let settleDuringSend = false;
    const api = {
      profile: { kind: 'local', baseUrl: base.baseUrl },
      capabilities: { contract: 'v2' },
      async submit(_workflow: Workflow, options: { idempotencyKey?: string }) {
        // The intent is journaled before the send (docs/v2-submit-policy.md, 1).
        sent.push({ key: options.idempotencyKey, journaled: (await jobs.get(options.idempotencyKey!))?.phase });
        if (settleDuringSend) await jobs.remove(options.idempotencyKey!);
        clock += 500;
        return { promptId: `job-${sent.length}`, number: 7 };
      },
    } as unknown as ServiceApi;
    const target = { api, jobs, clientId: 'c-1', profileId: 'p-1' };
    const intent = { workflow: workflow(), workflowName: 'demo.json', origin: 'cli' as const };
    expect(await submitJobV2(target, { ...intent, newPromptId: () => 'key-1' })).toEqual({ promptId: 'job-1', number: 7 });
    expect(sent).toEqual([{ key: 'key-1', journaled: 'submitting' }]);
    expect(await jobs.get('key-1')).toBeNull();
    const record = await jobs.get('job-1');
    expect(record).toMatchObject({ phase: 'pending', rawStatus: 'submitted', number: 7, createdAt: 1_000, updatedAt: 1_500 });
    expect(record).toMatchObject({ clientId: 'c-1', profileId: 'p-1', workflowName: 'demo.json', origin: 'cli', baseUrl: base.baseUrl });
    expect((record!.workflow!['3'] as { inputs: { seed: unknown } }).inputs.seed).toBe(SEED);
    // The intent was settled meanwhile (no row to move on): the job is recorded afresh, whole.
    settleDuringSend = true;
    await submitJobV2(target, { ...intent, newPromptId: () => 'key-2' });
    expect(await jobs.get('key-2')).toBeNull();
    expect(await jobs.get('job-2')).toMatchObject({ phase: 'pending', number: 7, clientId: 'c-1', workflowName: 'demo.json', origin: 'cli' });
    expect(((await jobs.get('job-2'))!.workflow!['3'] as { inputs: { seed: unknown } }).inputs.seed).toBe(SEED);
  });

  it('records an end in one write: phase, error, progress and the outputs not there yet', async () => {
    store = await Store.open(':memory:');
    const jobs = await JobStore.open(store, { now });
    await jobs.recordSubmitted({ ...base, promptId: 'e1', workflowName: 'first' });
    // Recorded already: a later "if absent" leaves the record as it is.
    await jobs.recordSubmittedIfAbsent({ ...base, promptId: 'e1', workflowName: 'second', clientId: 'c-2' });
    await jobs.recordSubmittedIfAbsent({ ...base, promptId: 'e2' });
    expect(await jobs.get('e1')).toMatchObject({ workflowName: 'first', clientId: 'c-1', phase: 'pending' });
    expect(await jobs.get('e2')).toMatchObject({ phase: 'pending', rawStatus: 'submitted' });
    const a = { filename: 'a.png', subfolder: '', type: 'output', node: '9', key: 'images' };
    const b = { ...a, filename: 'b.png' };
    await jobs.addOutputs('e1', [a]);
    clock = 2_000;
    const error = { exceptionType: 'E', explanation: 'x', message: 'y', nodeId: null, nodeType: null, traceback: [] };
    await jobs.recordEnd('e1', { phase: 'failed', rawStatus: 'error', progress: { nodesDone: 1, nodesTotal: 2, currentNode: null }, error, outputs: [a, b] });
    expect(await jobs.get('e1')).toMatchObject({
      phase: 'failed',
      rawStatus: 'error',
      endedAt: 2_000,
      updatedAt: 2_000,
      error,
      progress: { nodesDone: 1, nodesTotal: 2, currentNode: null },
    });
    expect((await jobs.get('e1'))!.outputs.map((o) => o.filename)).toEqual(['a.png', 'b.png']);
    await jobs.recordEnd('e2', { phase: 'succeeded', rawStatus: 'success', progress: null, error: null, outputs: [] });
    expect(await jobs.get('e2')).toMatchObject({ phase: 'succeeded', endedAt: 2_000, error: null, outputs: [] });
    // A damaged list is started afresh (it reads as empty anyway).
    await store.run(`UPDATE jobs SET outputs = 'not json' WHERE prompt_id = 'e2'`);
    expect(await jobs.addOutputs('e2', [b, b])).toBe(1);
    expect((await jobs.get('e2'))!.outputs).toEqual([b]);
  });

  it("the tracker's journal writes an announced phase a moment later, or not at all when the end comes first", async () => {
    store = await Store.open(':memory:');
    const jobs = await JobStore.open(store, { now });
    const journal = new JobJournal(jobs, (message) => {
      throw new Error(message);
    });
    await jobs.recordSubmitted({ ...base, promptId: 'r1' });
    await jobs.recordSubmitted({ ...base, promptId: 'r2' });
    const one = new JobState('r1', 1_000);
    one.markRunning(1_000);
    journal.writePhaseSoon(one);
    // Waiting for the job's writes starts the one still waiting.
    await journal.settled('r1');
    expect((await jobs.get('r1'))?.phase).toBe('running');
    const two = new JobState('r2', 1_000);
    two.markRunning(1_000);
    journal.writePhaseSoon(two);
    two.end('succeeded', 'success', 1_000);
    journal.writeEnd(two, 'succeeded', 'success', [], null);
    await journal.flush();
    await new Promise((r) => setTimeout(r, 400)); // past the delay: the cancelled phase write must not land
    expect((await jobs.get('r2'))?.phase).toBe('succeeded');
  });

  it("the tracker's journal writes announced outputs with the end, in one statement, or a moment later without one", async () => {
    store = await Store.open(':memory:');
    const jobs = await JobStore.open(store, { now });
    const journal = new JobJournal(jobs, (message) => {
      throw new Error(message);
    });
    await jobs.recordSubmitted({ ...base, promptId: 'o1' });
    await jobs.recordSubmitted({ ...base, promptId: 'o2' });
    const out = { filename: 'o.png', subfolder: 'x', type: 'output', node: '9', key: 'images' };
    const statements: string[] = [];
    const run = store.run.bind(store);
    store.run = (sql, params) => {
      statements.push(sql.trim().split(/\s+/).slice(0, 3).join(' '));
      return run(sql, params);
    };
    // Announced, then the end right after (an instant job): one UPDATE writes both.
    const one = new JobState('o1', 1_000);
    journal.writeOutputs('o1', [out]);
    one.end('succeeded', 'success', 1_000);
    journal.writeEnd(one, 'succeeded', 'success', [out], null);
    await journal.settled('o1');
    expect(statements).toEqual(['UPDATE jobs SET']);
    expect(await jobs.get('o1')).toMatchObject({ phase: 'succeeded', outputs: [out] });
    // Written again with the same output (a repeated end): the list keeps it once.
    await jobs.recordEnd('o1', { phase: 'succeeded', rawStatus: 'success', progress: null, error: null, outputs: [out] });
    expect((await jobs.get('o1'))!.outputs).toEqual([out]);
    // Announced with no end coming: on disk a moment later all the same.
    journal.writeOutputs('o2', [out]);
    await new Promise((r) => setTimeout(r, 400));
    expect((await jobs.get('o2'))!.outputs).toEqual([out]);
    expect((await jobs.get('o2'))!.phase).toBe('pending');
  });

  it('keeps errors, lists newest first and in-flight oldest first', async () => {
    store = await Store.open(':memory:');
    const jobs = await JobStore.open(store, { now });
    for (const [i, id] of ['a', 'b', 'c'].entries()) {
      clock = 1_000 + i;
      await jobs.recordSubmitted({ ...base, promptId: id });
    }
    await jobs.updatePhase('b', 'failed', 'error');
    const error = { exceptionType: 'OOMError', explanation: 'x', message: 'y', nodeId: '3', nodeType: 'KSampler', traceback: ['l1'] };
    await jobs.setError('b', error);
    expect((await jobs.get('b'))?.error).toEqual(error);
    expect((await jobs.list({ limit: 2 })).map((j) => j.promptId)).toEqual(['c', 'b']);
    expect((await jobs.listInFlight()).map((j) => j.promptId)).toEqual(['a', 'c']);
    await jobs.remove('a');
    expect(await jobs.get('a')).toBeNull();
  });

  it('skips a damaged row instead of failing the whole list', async () => {
    store = await Store.open(':memory:');
    const jobs = await JobStore.open(store, { now });
    await jobs.recordSubmitted({ ...base, promptId: 'good' });
    await store.run(`INSERT INTO jobs (prompt_id, server_kind, base_url, phase, created_at, updated_at) VALUES ('bad', 'martian', 'x', 'pending', 1, 1)`);
    await store.run(`UPDATE jobs SET outputs = 'not json' WHERE prompt_id = 'good'`);
    const list = await jobs.listInFlight();
    expect(list.map((j) => j.promptId)).toEqual(['good']);
    expect(list[0]!.outputs).toEqual([]);
  });
});

describe('JobStore origin', () => {
  it('keeps where each job was started, and reads rows journaled before as unknown', async () => {
    store = await Store.open(join(dir, 'old.db'));
    // A journal written before the origin column existed.
    await store.migrate('jobs', (await import('@main/jobs/job-store')).JOBS_MIGRATIONS.slice(0, 1));
    await store.run(
      `INSERT INTO jobs (prompt_id, server_kind, base_url, phase, created_at, updated_at) VALUES ('old', 'local', 'http://x', 'succeeded', 1, 1)`,
    );
    const jobs = await JobStore.open(store, { now });
    expect((await jobs.get('old'))?.origin).toBeNull();
    await jobs.recordSubmitting({ ...base, promptId: 'cli-1', origin: 'cli' });
    await jobs.recordSubmitted({ ...base, promptId: 'cli-1' });
    await jobs.recordSubmitted({ ...base, promptId: 'hot-1', origin: 'hot-folder' });
    await jobs.recordSubmitted({ ...base, promptId: 'win-1', origin: 'window' });
    expect((await jobs.get('cli-1'))?.origin).toBe('cli');
    expect((await jobs.get('hot-1'))?.origin).toBe('hot-folder');
    expect((await jobs.list()).map((r) => [r.promptId, r.origin])).toEqual(
      expect.arrayContaining([
        ['win-1', 'window'],
        ['old', null],
      ]),
    );
    // An unknown word in the file reads as unknown, not as an error.
    await store.run(`UPDATE jobs SET origin = 'martian' WHERE prompt_id = 'win-1'`);
    expect((await jobs.get('win-1'))?.origin).toBeNull();
  });
});

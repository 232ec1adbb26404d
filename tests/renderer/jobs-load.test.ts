// The Jobs panel at start-up (issue 25): loading a long journal takes in only the jobs the panel
// keeps (every job in flight, the 50 newest finished), so it fetches the outputs of those only,
// not of the hundreds jobs.list returns; and an output whose job was released while it was being
// fetched leaves no object URL behind.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CallName, Envelope, FlowdeckApi, JobSnapshotView } from '@shared/ipc/contract';
import { Api } from '../../src/renderer/src/lib/api';
import { jobsToLoad } from '../../src/renderer/src/lib/jobs/jobs-to-load';
import { OutputStore } from '../../src/renderer/src/lib/stores/outputs.svelte';
import { jobView } from '../support/job-view';

const live = new Set<string>();
let counter = 0;

beforeEach(() => {
  live.clear();
  vi.spyOn(URL, 'createObjectURL').mockImplementation(() => {
    const url = `blob:test/${++counter}`;
    live.add(url);
    return url;
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation((url: string) => {
    live.delete(url);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

function job(n: number, phase: JobSnapshotView['phase']): JobSnapshotView {
  const at = 1_000_000 - n;
  return jobView(`job-${n}`, phase, {
    submittedAt: at,
    updatedAt: at,
    finishedAt: phase === 'succeeded' || phase === 'failed' ? at : null,
    outputs: [{ node: '9', key: 'images', filename: `out-${n}.png`, subfolder: '', type: 'output' }],
  });
}

/** A bridge answering jobs.list with `jobs` and output.fetch when `release()` says (counted). */
function bridge(jobs: JobSnapshotView[]): { api: Api; fetched: string[]; release: () => void } {
  const fetched: string[] = [];
  const waiting: (() => void)[] = [];
  const fake = {
    invoke: async (name: CallName, input?: unknown): Promise<Envelope<unknown>> => {
      if (name === 'jobs.list') return { ok: true, value: { jobs } };
      if (name === 'output.fetch') {
        fetched.push((input as { promptId: string }).promptId);
        await new Promise<void>((resolve) => waiting.push(resolve));
        return { ok: true, value: { mime: 'image/png', bytes: new Uint8Array([1, 2, 3]) } };
      }
      if (name === 'history.list') return { ok: true, value: { entries: [], total: 0 } };
      return { ok: false, error: { code: 'internal', message: `unexpected ${name}` } };
    },
    on: () => () => undefined,
  } as unknown as FlowdeckApi;
  return { api: new Api(fake), fetched, release: () => waiting.splice(0).forEach((go) => go()) };
}

describe('jobsToLoad', () => {
  it('keeps every job in flight and the 50 newest finished, not the cleared ones', () => {
    const listed = Array.from({ length: 500 }, (_, n) => job(n, n % 100 === 7 ? 'running' : 'succeeded'));
    const kept = new Set(jobsToLoad(listed, 0, 50).map((j) => j.promptId));
    const running = listed.filter((j) => j.phase === 'running').map((j) => j.promptId);
    expect(running).toHaveLength(5);
    for (const id of running) expect(kept.has(id)).toBe(true);
    expect(kept.size).toBe(55);
    // The newest finished jobs, not the old ones.
    expect(kept.has('job-0')).toBe(true);
    expect(kept.has('job-50')).toBe(true);
    expect(kept.has('job-51')).toBe(false);
    expect(kept.has('job-499')).toBe(false);
    // Cleared: finished jobs that ended by then are not taken in; jobs in flight still are.
    const afterClear = jobsToLoad(listed, 1_000_000 - 10, 50).map((j) => j.promptId);
    expect(afterClear).toContain('job-0');
    expect(afterClear).not.toContain('job-10');
    expect(afterClear).toContain('job-407');
  });
});

describe('OutputStore', () => {
  it('makes no object URL for an output whose job was released while it was fetched', async () => {
    const { api, release } = bridge([]);
    const outputs = new OutputStore(api);
    outputs.ensure('job-1', job(1, 'succeeded').outputs);
    outputs.release('job-1');
    release();
    for (let i = 0; i < 5; i += 1) await new Promise((r) => setTimeout(r, 0));
    expect(live.size).toBe(0);
    expect(outputs.byJob.has('job-1')).toBe(false);
  });
});

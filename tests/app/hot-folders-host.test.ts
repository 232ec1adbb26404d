// The hot-folder host's views: a running job's share done, and the per-key event throttle. (Which
// jobs skip the library is decided by the job journal's origin: tests/app/output-route.test.ts.)
import { expect, it } from 'vitest';
import { LatestWins } from '@shared/latest-wins';
import { jobProgress } from '@main/app/hot-folder-views';
import type { JobSnapshot } from '@main/jobs/types';
import { until } from '../watch/helpers';

it("reports a running job's overall share done: finished nodes plus the current node's steps", () => {
  const snapshot = (nodesDone: number, nodesTotal: number | null, current: { value: number; max: number } | null): JobSnapshot => ({
    promptId: 'p',
    phase: 'running',
    rawStatus: 'running',
    trackedAt: 0,
    startedAt: 0,
    endedAt: null,
    nodes: current ? { '2': { state: 'running', ...current } } : {},
    currentNode: current ? '2' : null,
    nodesTotal,
    nodesDone,
    cachedNodes: [],
    progressText: {},
    latestPreview: null,
    outputs: [],
    error: null,
    workflowName: null,
    unreachable: null,
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

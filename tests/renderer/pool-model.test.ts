// The pool as the renderer edits and shows it: adding a profile once, moving within bounds,
// concurrency checks, what changed, and the status line's words.
import { describe, expect, it } from 'vitest';
import type { PoolStatusView, ProfileView } from '@shared/ipc/contract';
import {
  addToPool,
  addableProfiles,
  concurrencyProblem,
  draftOfPool,
  movePoolEntry,
  poolChanged,
  removeFromPool,
} from '../../src/renderer/src/lib/pool/pool-draft';
import { poolStatusLine } from '../../src/renderer/src/lib/pool/pool-status';

const profiles: ProfileView[] = [
  { id: 'a', name: 'GPU 1', kind: 'local', baseUrl: 'http://10.0.0.1:8188' },
  { id: 'b', name: 'GPU 2', kind: 'local', baseUrl: 'http://10.0.0.2:8188' },
  { id: 'c', name: 'Cloud', kind: 'cloud', baseUrl: 'https://cloud.comfy.org' },
];

describe('pool draft', () => {
  it('adds a profile once, with concurrency 1, and offers only profiles not in the pool', () => {
    let draft = addToPool([], 'b');
    draft = addToPool(draft, 'b');
    expect(draft).toEqual([{ profileId: 'b', concurrency: 1 }]);
    expect(addableProfiles(draft, profiles).map((p) => p.id)).toEqual(['a', 'c']);
    expect(removeFromPool(addToPool(draft, 'a'), 'b')).toEqual([{ profileId: 'a', concurrency: 1 }]);
  });

  it('moves an entry up or down and leaves the ends alone', () => {
    const draft = [
      { profileId: 'a', concurrency: 1 },
      { profileId: 'b', concurrency: 2 },
      { profileId: 'c', concurrency: 3 },
    ];
    expect(movePoolEntry(draft, 2, -1).map((e) => e.profileId)).toEqual(['a', 'c', 'b']);
    expect(movePoolEntry(draft, 0, 1).map((e) => e.profileId)).toEqual(['b', 'a', 'c']);
    expect(movePoolEntry(draft, 0, -1)).toEqual(draft);
    expect(movePoolEntry(draft, 2, 1)).toEqual(draft);
  });

  it('checks concurrency and tells a changed pool from the saved one', () => {
    expect(concurrencyProblem(1)).toBeNull();
    expect(concurrencyProblem(64)).toBeNull();
    for (const bad of [0, 65, 1.5, Number.NaN]) expect(concurrencyProblem(bad)).toMatch(/whole number from 1 to 64/);
    const saved = [{ profileId: 'a', name: 'GPU 1', kind: 'local' as const, concurrency: 2 }];
    expect(poolChanged(draftOfPool(saved), saved)).toBe(false);
    expect(poolChanged([{ profileId: 'a', concurrency: 3 }], saved)).toBe(true);
    expect(poolChanged([], saved)).toBe(true);
  });
});

describe('pool status line', () => {
  it('says nothing while no pool runs', () => {
    expect(poolStatusLine({ active: false, members: [], jobsPerMinute: 0 })).toBeNull();
  });

  it('gives jobs per server, throughput, and each server out of rotation with its reason', () => {
    const status: PoolStatusView = {
      active: true,
      jobsPerMinute: 12,
      members: [
        { name: 'GPU 1', profileId: 'a', inRotation: true, reason: null, running: 1, concurrency: 1, done: 7, failed: 0 },
        { name: 'GPU 2', profileId: 'b', inRotation: false, reason: 'The server cannot be reached.', running: 0, concurrency: 2, done: 5, failed: 1 },
        { name: 'Cloud', profileId: 'c', inRotation: false, reason: null, running: 0, concurrency: null, done: 0, failed: 0 },
      ],
    };
    expect(poolStatusLine(status)).toEqual({
      perServer: 'GPU 1: 1/1 running, 7 done',
      throughput: '12 jobs/min',
      out: ['GPU 2 out of rotation: The server cannot be reached.', 'Cloud out of rotation: not answering'],
    });
    expect(poolStatusLine({ ...status, jobsPerMinute: 1 })?.throughput).toBe('1 job/min');
  });
});

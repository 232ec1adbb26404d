// The job.update gate: updates that change nothing on screen are dropped, progress-only changes are
// spaced out (latest wins), anything else and a job's end go out at once, and nothing is left behind.
import { describe, expect, it } from 'vitest';
import type { JobSnapshotView } from '@shared/ipc/contract';
import { JobUpdateGate, type GateTimers } from '@main/app/job-update-gate';

/** A clock the test moves by hand; timers fire when it passes their time. */
class ManualTimers implements GateTimers {
  at = 0;
  private timers: { due: number; fn: () => void; live: boolean }[] = [];
  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { due: this.at + ms, fn, live: true };
    this.timers.push(timer);
    return timer;
  }
  clearTimeout(handle: unknown): void {
    (handle as { live: boolean }).live = false;
  }
  now(): number {
    return this.at;
  }
  advance(ms: number): void {
    this.at += ms;
    for (const timer of this.timers.filter((t) => t.live && t.due <= this.at)) {
      timer.live = false;
      timer.fn();
    }
    this.timers = this.timers.filter((t) => t.live);
  }
  pending(): number {
    return this.timers.filter((t) => t.live).length;
  }
}

function view(promptId: string, change: Partial<JobSnapshotView> = {}): JobSnapshotView {
  return {
    promptId,
    profileId: 'p',
    label: 'workflow',
    origin: 'window',
    phase: 'running',
    status: 'in_progress',
    submittedAt: 1,
    updatedAt: Math.random(),
    finishedAt: null,
    currentNode: '3',
    progress: { value: 0, max: 20 },
    overall: 0,
    nodesDone: 0,
    nodesTotal: 2,
    progressText: null,
    outputs: [],
    error: null,
    unreachable: null,
    ...change,
  };
}

function setup(interval = 250) {
  const timers = new ManualTimers();
  const sent: JobSnapshotView[] = [];
  const gate = new JobUpdateGate((v) => sent.push(v), interval, timers);
  return { timers, sent, gate };
}

describe('JobUpdateGate', () => {
  it('sends the first view and drops later ones that differ only in updatedAt', () => {
    const { sent, gate } = setup();
    gate.offer(view('a'));
    gate.offer(view('a'));
    gate.offer(view('a'));
    expect(sent).toHaveLength(1);
  });

  it('spaces out progress-only changes: at most one per interval, the latest one', () => {
    const { timers, sent, gate } = setup();
    gate.offer(view('a'));
    for (let step = 1; step <= 10; step += 1) gate.offer(view('a', { progress: { value: step, max: 20 } }));
    expect(sent.map((v) => v.progress?.value)).toEqual([0]);
    timers.advance(249);
    expect(sent).toHaveLength(1);
    timers.advance(1);
    expect(sent.map((v) => v.progress?.value)).toEqual([0, 10]);
    // Past the interval, the next change goes out at once.
    timers.advance(300);
    gate.offer(view('a', { progress: { value: 11, max: 20 } }));
    expect(sent.map((v) => v.progress?.value)).toEqual([0, 10, 11]);
    // Its window closes quietly when nothing more comes: no timer outlives the interval.
    timers.advance(250);
    expect(sent).toHaveLength(3);
    expect(timers.pending()).toBe(0);
  });

  it('sends any other change at once, replacing a held progress view', () => {
    const { timers, sent, gate } = setup();
    gate.offer(view('a'));
    gate.offer(view('a', { progress: { value: 5, max: 20 } }));
    gate.offer(view('a', { progress: { value: 6, max: 20 }, outputs: [{ filename: 'x.png', subfolder: '', type: 'output', node: '9', key: 'k' }] }));
    expect(sent.map((v) => [v.progress?.value, v.outputs.length])).toEqual([
      [0, 0],
      [6, 1],
    ]);
    timers.advance(1000);
    // The held view was superseded: nothing older follows the newer one.
    expect(sent).toHaveLength(2);
  });

  it("sends a job's end at once and keeps nothing for it", () => {
    const { timers, sent, gate } = setup();
    gate.offer(view('a'));
    gate.offer(view('a', { progress: { value: 3, max: 20 } }));
    gate.offer(view('a', { phase: 'succeeded', status: 'completed', finishedAt: 9, progress: { value: 20, max: 20 } }));
    expect(sent.map((v) => v.phase)).toEqual(['running', 'succeeded']);
    expect(gate.size()).toBe(0);
    expect(timers.pending()).toBe(0);
    timers.advance(1000);
    expect(sent).toHaveLength(2);
  });

  it('keeps jobs apart, and dispose drops held views and timers', () => {
    const { timers, sent, gate } = setup();
    gate.offer(view('a'));
    gate.offer(view('b'));
    gate.offer(view('a', { progress: { value: 1, max: 20 } }));
    gate.offer(view('b', { progress: { value: 1, max: 20 } }));
    expect(sent.map((v) => v.promptId)).toEqual(['a', 'b']);
    timers.advance(250);
    expect(sent.map((v) => v.promptId)).toEqual(['a', 'b', 'a', 'b']);
    gate.offer(view('a', { progress: { value: 2, max: 20 } }));
    gate.offer(view('a', { progress: { value: 3, max: 20 } }));
    gate.dispose();
    expect(timers.pending()).toBe(0);
    expect(gate.size()).toBe(0);
  });

  it('with interval 0 sends every change that shows, still dropping repeats', () => {
    const { sent, gate } = setup(0);
    gate.offer(view('a'));
    gate.offer(view('a', { progress: { value: 1, max: 20 } }));
    gate.offer(view('a', { progress: { value: 1, max: 20 } }));
    gate.offer(view('a', { progress: { value: 2, max: 20 } }));
    expect(sent.map((v) => v.progress?.value)).toEqual([0, 1, 2]);
  });
});

// One frame per live-preview step (issue 25): while previews are on screen, a running job's
// progress-only update and the durations' clock tick are held and applied in the same task as the
// next preview frame goes on screen (so Chromium paints once), never later than the longest wait,
// and not held at all when no preview is showing. Anything but progress is applied at once and
// drops a held progress view. The window title's percentage is written at most every 2 s.
import { describe, expect, it } from 'vitest';
import type { JobSnapshotView, PreviewView } from '@shared/ipc/contract';
import { routeJobUpdate } from '../../src/renderer/src/lib/jobs/job-update-route';
import { PaintSync, type SyncTimers } from '../../src/renderer/src/lib/stores/paint-sync';
import { PreviewStore, type PreviewBitmap } from '../../src/renderer/src/lib/stores/previews.svelte';
import { WindowTitleWriter } from '../../src/renderer/src/lib/ui/title';
import { jobView } from '../support/job-view';

/** A clock moved by hand: timers fire when `advance` passes their time. */
function handClock(): SyncTimers & { advance(ms: number): void; pending(): number } {
  let now = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = end;
    },
    pending: () => timers.size,
  };
}

describe('PaintSync', () => {
  it('applies at once while no preview is on screen', () => {
    const clock = handClock();
    const sync = new PaintSync(500, 1500, clock);
    const applied: string[] = [];
    sync.defer('a', () => applied.push('a1'));
    expect(applied).toEqual(['a1']);
    expect(clock.pending()).toBe(0);
  });

  it('holds changes for the next frame while previews flow, latest per key, all applied with the frame', () => {
    const clock = handClock();
    const sync = new PaintSync(500, 1500, clock);
    const applied: string[] = [];
    sync.frame();
    sync.defer('job', () => applied.push('step 1'));
    sync.defer('job', () => applied.push('step 2'));
    sync.defer('clock', () => applied.push('tick'));
    clock.advance(100);
    expect(applied).toEqual([]);
    expect(sync.held).toBe(2);
    sync.frame();
    expect(applied).toEqual(['step 2', 'tick']);
    expect(sync.held).toBe(0);
    expect(clock.pending()).toBe(0);
  });

  it('applies what waited longer than maxWait on its own, and stops holding once frames stop', () => {
    const clock = handClock();
    const sync = new PaintSync(500, 1500, clock);
    const applied: string[] = [];
    sync.frame();
    sync.defer('job', () => applied.push('late'));
    clock.advance(499);
    expect(applied).toEqual([]);
    clock.advance(1);
    expect(applied).toEqual(['late']);
    clock.advance(1001);
    expect(sync.flowing).toBe(false);
    sync.defer('job', () => applied.push('now'));
    expect(applied).toEqual(['late', 'now']);
  });

  it('forgets a dropped change', () => {
    const clock = handClock();
    const sync = new PaintSync(500, 1500, clock);
    const applied: string[] = [];
    sync.frame();
    sync.defer('job', () => applied.push('stale'));
    sync.drop('job');
    expect(clock.pending()).toBe(0);
    sync.frame();
    clock.advance(1000);
    expect(applied).toEqual([]);
  });
});

class Picture implements PreviewBitmap {
  width = 512;
  height = 512;
  close(): void {
    this.width = 0;
  }
}

function frame(seq: number): PreviewView {
  return { promptId: 'job-1', nodeId: '3', mime: 'image/jpeg', bytes: new Uint8Array([0xff, 0xd8, seq]), seq };
}

const step = (value: number, extra: Partial<JobSnapshotView> = {}): JobSnapshotView =>
  jobView('job-1', 'running', { currentNode: '3', progress: { value, max: 20 }, updatedAt: value, ...extra });

describe('job.update with the live preview', () => {
  it('shows a step and its preview together, and anything but progress at once', async () => {
    const clock = handClock();
    const sync = new PaintSync(500, 1500, clock);
    const previews = new PreviewStore(async () => new Picture(), sync);
    const shown = new Map<string, JobSnapshotView>();
    /** What was on screen for the job each time its preview frame changed (what one frame shows). */
    const together: [number | undefined, number][] = [];
    const receive = (view: JobSnapshotView): void => routeJobUpdate(sync, shown.get(view.promptId), view, (v) => shown.set(v.promptId, v));
    const originalSet = previews.frames.set.bind(previews.frames);
    previews.frames.set = (key, value) => {
      together.push([shown.get(key)?.progress?.value, value.seq]);
      return originalSet(key, value);
    };
    previews.watch('job-1');

    receive(step(1));
    expect(shown.get('job-1')?.progress?.value).toBe(1);
    await previews.accept(frame(1));
    // Previews flow now: step 2 waits for its frame, then both show in the same task.
    receive(step(2));
    expect(shown.get('job-1')?.progress?.value).toBe(1);
    await previews.accept(frame(2));
    expect(shown.get('job-1')?.progress?.value).toBe(2);
    expect(together).toEqual([
      [1, 1],
      [2, 2],
    ]);

    // Without the sync (an update applied as it comes) the step would have shown a frame earlier:
    // the held view really was held until the frame.
    receive(step(3));
    clock.advance(499);
    expect(shown.get('job-1')?.progress?.value).toBe(2);

    // Not progress: applied at once, and the held step 3 is dropped (never shown after it).
    receive(step(3, { phase: 'succeeded', status: 'succeeded', finishedAt: 10, progress: null }));
    expect(shown.get('job-1')?.phase).toBe('succeeded');
    clock.advance(1000);
    await previews.accept(frame(3));
    expect(shown.get('job-1')?.phase).toBe('succeeded');
  });

  it('applies a step at once when no preview is showing', () => {
    const sync = new PaintSync(500, 1500, handClock());
    const shown = new Map<string, JobSnapshotView>();
    const receive = (view: JobSnapshotView): void => routeJobUpdate(sync, shown.get(view.promptId), view, (v) => shown.set(v.promptId, v));
    receive(step(1));
    receive(step(2));
    expect(shown.get('job-1')?.progress?.value).toBe(2);
  });
});

describe('WindowTitleWriter', () => {
  it('writes a change of the percentage at most every 2 s, latest wins, and other changes at once', () => {
    const clock = handClock();
    const written: string[] = [];
    const title = new WindowTitleWriter((text) => written.push(text), 2000, clock);
    title.set('1 running · 10% — Flowdeck');
    title.set('1 running · 11% — Flowdeck');
    title.set('1 running · 12% — Flowdeck');
    expect(written).toEqual(['1 running · 10% — Flowdeck']);
    clock.advance(2000);
    expect(written).toEqual(['1 running · 10% — Flowdeck', '1 running · 12% — Flowdeck']);
    title.set('1 running · 13% — Flowdeck');
    // The job ends: the held percentage is dropped and the new title goes out now.
    title.set('Flowdeck');
    expect(written.at(-1)).toBe('Flowdeck');
    clock.advance(5000);
    expect(written).toEqual(['1 running · 10% — Flowdeck', '1 running · 12% — Flowdeck', 'Flowdeck']);
    title.dispose();
    expect(clock.pending()).toBe(0);
  });
});

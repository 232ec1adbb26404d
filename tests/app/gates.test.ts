// Latest-wins preview back-pressure and the ready gate that holds events until the renderer is up.
import { describe, expect, it } from 'vitest';
import type { PreviewView } from '@shared/ipc/contract';
import { PreviewGate } from '@main/app/preview-gate';
import { ReadyGate } from '@main/app/ready-gate';

const frame = (promptId: string, n: number) => ({ promptId, nodeId: '3', mime: 'image/jpeg' as const, bytes: new Uint8Array([n]) });

describe('PreviewGate', () => {
  it('keeps one frame in flight and one waiting per job; a newer frame replaces the waiting one', () => {
    const sent: PreviewView[] = [];
    const gate = new PreviewGate((f) => sent.push(f));
    for (let n = 1; n <= 50; n += 1) gate.offer(frame('a', n));
    expect(sent.map((f) => f.bytes[0])).toEqual([1]);
    expect(gate.stats('a')).toEqual({ sent: 1, replaced: 48, inFlight: true, waiting: true });
    gate.ack('a', sent[0]!.seq);
    // The acknowledgement releases only the latest frame; 2..49 were never queued.
    expect(sent.map((f) => f.bytes[0])).toEqual([1, 50]);
    gate.ack('a', sent[1]!.seq);
    expect(gate.stats('a')).toMatchObject({ inFlight: false, waiting: false });
    gate.offer(frame('a', 51));
    expect(sent.map((f) => f.bytes[0])).toEqual([1, 50, 51]);
  });

  it('ignores stale and unknown acknowledgements; jobs do not hold each other back', () => {
    const sent: PreviewView[] = [];
    const gate = new PreviewGate((f) => sent.push(f));
    gate.offer(frame('a', 1));
    gate.offer(frame('b', 1));
    gate.offer(frame('a', 2));
    expect(sent.map((f) => `${f.promptId}${f.bytes[0]}`)).toEqual(['a1', 'b1']);
    gate.ack('a', 999);
    gate.ack('zzz', 1);
    expect(sent).toHaveLength(2);
    gate.ack('a', sent[0]!.seq);
    expect(sent.map((f) => `${f.promptId}${f.bytes[0]}`)).toEqual(['a1', 'b1', 'a2']);
  });

  it('forgets a finished job once its frames are through, and resends the waiting frame to a new renderer', () => {
    const sent: PreviewView[] = [];
    const gate = new PreviewGate((f) => sent.push(f));
    gate.offer(frame('a', 1));
    gate.offer(frame('a', 2));
    gate.end('a');
    expect(gate.stats('a')).not.toBeNull();
    gate.reset(); // a reload: frame 1 is gone with the old page, frame 2 goes to the new one
    expect(sent.map((f) => f.bytes[0])).toEqual([1, 2]);
    gate.ack('a', sent[1]!.seq);
    expect(gate.stats('a')).toBeNull();
  });
});

describe('ReadyGate', () => {
  it('holds items until ready, keeping the latest per key, then delivers in order', () => {
    const out: string[] = [];
    const gate = new ReadyGate<{ k: string | null; v: string }>(
      (i) => out.push(i.v),
      (i) => i.k,
    );
    gate.push({ k: 'job:a', v: 'a1' });
    gate.push({ k: null, v: 'x' });
    gate.push({ k: 'job:a', v: 'a2' });
    expect(out).toEqual([]);
    gate.markReady();
    expect(out).toEqual(['x', 'a2']);
    gate.push({ k: 'job:a', v: 'a3' });
    expect(out).toEqual(['x', 'a2', 'a3']);
    gate.reset();
    gate.push({ k: null, v: 'y' });
    expect(out).toHaveLength(3);
  });

  it('is bounded while nobody is ready', () => {
    const gate = new ReadyGate<number>(
      () => undefined,
      () => null,
      10,
    );
    for (let i = 0; i < 1000; i += 1) gate.push(i);
    expect(gate.queued).toBe(10);
  });
});

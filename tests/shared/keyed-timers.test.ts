// The keyed timer queue hot folders and the library schedule with: one pending task per key,
// replaced, cancelled by key or all at once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeyedTimers } from '@shared/keyed-timers';

describe('KeyedTimers', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs a task once after its delay and forgets it', () => {
    const timers = new KeyedTimers<string>();
    const ran: string[] = [];
    timers.set('a', 100, () => ran.push('a'));
    expect(timers.has('a')).toBe(true);
    vi.advanceTimersByTime(99);
    expect(ran).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ran).toEqual(['a']);
    expect(timers.has('a')).toBe(false);
    expect(timers.size).toBe(0);
  });

  it('replaces the pending task of a key; cancels by key and all at once', () => {
    const timers = new KeyedTimers<number>();
    const ran: string[] = [];
    timers.set(1, 100, () => ran.push('first'));
    timers.set(1, 50, () => ran.push('second'));
    timers.set(2, 10, () => ran.push('two'));
    timers.set(3, 10, () => ran.push('three'));
    expect(timers.cancel(2)).toBe(true);
    expect(timers.cancel(2)).toBe(false);
    vi.advanceTimersByTime(60);
    expect(ran).toEqual(['three', 'second']);
    timers.set(4, 10, () => ran.push('four'));
    timers.cancelAll();
    vi.advanceTimersByTime(1000);
    expect(ran).toEqual(['three', 'second']);
  });

  it('runs a delay in the past at once', () => {
    const timers = new KeyedTimers<string>({ unref: true });
    const ran: string[] = [];
    timers.set('late', -500, () => ran.push('late'));
    vi.advanceTimersByTime(0);
    expect(ran).toEqual(['late']);
  });
});

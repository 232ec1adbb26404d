import { describe, expect, it } from 'vitest';
import type { LibraryItemView } from '@shared/ipc/library-contract';
import { dateRangeProblem, matchesFilter, NO_FILTERS, startOfLocalDay, toListFilter } from '../../src/renderer/src/lib/library/filters';

function item(overrides: Partial<LibraryItemView> = {}): LibraryItemView {
  return {
    id: 1,
    promptId: 'p',
    fileName: 'a.png',
    mediaKind: 'image',
    mime: 'image/png',
    size: 10,
    width: 8,
    height: 8,
    durationMs: null,
    createdAt: new Date(2026, 4, 10, 12).getTime(),
    status: 'done',
    error: null,
    workflowName: 'Portrait',
    profileId: 'demo',
    serverUrl: 'http://127.0.0.1:8190',
    hasFile: true,
    ...overrides,
  };
}

describe('library filters', () => {
  it('sends nothing for the empty filters', () => {
    expect(toListFilter(NO_FILTERS)).toEqual({});
    expect(toListFilter({ ...NO_FILTERS, query: '   ' })).toEqual({});
  });

  it('turns a local date range into [start of from, start of the day after to)', () => {
    const filter = toListFilter({
      ...NO_FILTERS,
      query: ' lighthouse ',
      type: 'video',
      from: '2026-05-01',
      to: '2026-05-31',
      workflow: 'Portrait',
      server: 'demo',
    });
    expect(filter).toEqual({
      query: 'lighthouse',
      type: 'video',
      since: new Date(2026, 4, 1).getTime(),
      until: new Date(2026, 5, 1).getTime(),
      workflow: 'Portrait',
      server: 'demo',
    });
    // One day: from and to the same date covers that whole day.
    const day = toListFilter({ ...NO_FILTERS, from: '2026-12-31', to: '2026-12-31' });
    expect(day.until! - day.since!).toBeGreaterThanOrEqual(23 * 3600_000);
    expect(new Date(day.until!).getFullYear()).toBe(2027);
  });

  it('rejects impossible dates and reversed ranges in words, and sends no dates then', () => {
    expect(startOfLocalDay('2026-02-31')).toBeNull();
    expect(startOfLocalDay('yesterday')).toBeNull();
    expect(dateRangeProblem({ from: '2026-02-31', to: '' })).toBe('"2026-02-31" is not a date.');
    expect(dateRangeProblem({ from: '2026-06-02', to: '2026-06-01' })).toBe('The "from" date is after the "to" date.');
    expect(dateRangeProblem({ from: '2026-06-01', to: '2026-06-01' })).toBeNull();
    expect(toListFilter({ ...NO_FILTERS, from: '2026-06-02', to: '2026-06-01' })).toEqual({});
  });

  it('decides whether an arriving item belongs, deferring full-text queries to main', () => {
    expect(matchesFilter(item(), {})).toBe('yes');
    expect(matchesFilter(item(), { type: 'video' })).toBe('no');
    expect(matchesFilter(item(), { workflow: 'portrait' })).toBe('yes');
    expect(matchesFilter(item({ workflowName: null }), { workflow: 'Portrait' })).toBe('no');
    expect(matchesFilter(item(), { server: 'demo' })).toBe('yes');
    expect(matchesFilter(item({ profileId: null }), { server: 'http://127.0.0.1:8190' })).toBe('yes');
    expect(matchesFilter(item(), { server: 'cloud' })).toBe('no');
    const created = item().createdAt;
    expect(matchesFilter(item(), { since: created })).toBe('yes');
    expect(matchesFilter(item(), { until: created })).toBe('no');
    expect(matchesFilter(item(), { query: 'lighthouse' })).toBe('unknown');
    expect(matchesFilter(item(), { query: 'lighthouse', type: 'audio' })).toBe('no');
  });
});

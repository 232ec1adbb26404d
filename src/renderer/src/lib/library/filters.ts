// The library toolbar's filters as the user sets them (a search text, a type, dates as typed in
// <input type="date">, a workflow and a server), turned into the contract's list filter, and the
// check whether an item that just arrived belongs in the current result without asking main.
import type { LibraryFilterView, LibraryItemView } from '@shared/ipc/library-contract';

export type TypeFilter = 'all' | 'image' | 'video' | 'audio' | 'other';

export interface LibraryFilters {
  query: string;
  type: TypeFilter;
  /** 'YYYY-MM-DD' from a date input, or '' (no bound). */
  from: string;
  to: string;
  /** A workflow name from the facets, or '' (any). */
  workflow: string;
  /** A server key from the facets (profile id or base URL), or '' (any). */
  server: string;
}

export const NO_FILTERS: LibraryFilters = { query: '', type: 'all', from: '', to: '', workflow: '', server: '' };

/** Start of a local calendar day, from a date input's value; null when empty or not a date. */
export function startOfLocalDay(value: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(year, month - 1, day);
  // new Date rolls 2026-02-31 over into March: such a value is not a date.
  if (date.getFullYear() !== year || date.getMonth() !== month - 1 || date.getDate() !== day) return null;
  return date.getTime();
}

/** The start of the day after a local day (the exclusive upper bound of "to this date"). */
function startOfNextLocalDay(value: string): number | null {
  const start = startOfLocalDay(value);
  if (start === null) return null;
  const date = new Date(start);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + 1).getTime();
}

/** Why the date range cannot be used, in plain words; null when it can. */
export function dateRangeProblem(filters: Pick<LibraryFilters, 'from' | 'to'>): string | null {
  const since = startOfLocalDay(filters.from);
  const until = startOfNextLocalDay(filters.to);
  if (filters.from !== '' && since === null) return `"${filters.from}" is not a date.`;
  if (filters.to !== '' && until === null) return `"${filters.to}" is not a date.`;
  if (since !== null && until !== null && since >= until) return 'The "from" date is after the "to" date.';
  return null;
}

/** The list filter for a page of the current result (offset and limit added by the caller). */
export function toListFilter(filters: LibraryFilters): LibraryFilterView {
  const out: LibraryFilterView = {};
  const query = filters.query.trim().slice(0, 500);
  if (query !== '') out.query = query;
  if (filters.type !== 'all') out.type = filters.type;
  if (dateRangeProblem(filters) === null) {
    const since = startOfLocalDay(filters.from);
    const until = startOfNextLocalDay(filters.to);
    if (since !== null) out.since = since;
    if (until !== null) out.until = until;
  }
  if (filters.workflow !== '') out.workflow = filters.workflow;
  if (filters.server !== '') out.server = filters.server;
  return out;
}

/**
 * Whether an item belongs in the result of `filter`: 'yes', 'no', or 'unknown' when a full-text
 * query is set (only main's index can answer that; the caller asks it again).
 */
export function matchesFilter(item: LibraryItemView, filter: LibraryFilterView): 'yes' | 'no' | 'unknown' {
  if (filter.type !== undefined && item.mediaKind !== filter.type) return 'no';
  if (filter.since !== undefined && item.createdAt < filter.since) return 'no';
  if (filter.until !== undefined && item.createdAt >= filter.until) return 'no';
  if (filter.workflow !== undefined && (item.workflowName ?? '').toLowerCase() !== filter.workflow.toLowerCase()) return 'no';
  if (filter.server !== undefined && item.profileId !== filter.server && item.serverUrl !== filter.server) return 'no';
  return filter.query !== undefined ? 'unknown' : 'yes';
}

export function filtersActive(filters: LibraryFilters): boolean {
  return Object.keys(toListFilter(filters)).length > 0;
}

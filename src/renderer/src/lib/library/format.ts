// How library facts read in the UI: sizes, durations, dates, and the run's inputs as JSON text
// with big integers exact (a 2^64-1 seed shows every digit).
import { parseJsonExact, stringifyJsonExact } from '@shared/json';

export function formatBytes(bytes: number | null): string {
  if (bytes === null) return '—';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

export function formatDate(epochMs: number): string {
  return new Date(epochMs).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** JSON text indented for reading; integers beyond 2^53 keep every digit. Unparsable text is shown as it is. */
export function prettyJsonExact(text: string): string {
  try {
    return stringifyJsonExact(parseJsonExact(text), 2);
  } catch {
    return text;
  }
}

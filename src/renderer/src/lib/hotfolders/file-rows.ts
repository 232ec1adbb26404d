// The per-file table of a hot folder: rows from hotFolders.files and hotFolders.file events merged
// (the newer row wins, so an event that overtook the listing is not undone by it), in a stable
// order, and what each row says about its outputs and its error. Pure data, tested without a DOM.
import type { HotFileView } from '@shared/ipc/hot-folders-contract';

/** Puts `incoming` into `rows` (keyed by path) unless the row there is newer. Returns whether it changed. */
export function mergeFileRow(rows: Map<string, HotFileView>, incoming: HotFileView): boolean {
  const existing = rows.get(incoming.path);
  if (existing && existing.updatedAt > incoming.updatedAt) return false;
  rows.set(incoming.path, incoming);
  return true;
}

/** By relative path, so rows do not jump around while their states change. */
export function sortedFileRows(rows: Iterable<HotFileView>): HotFileView[] {
  return [...rows].sort((a, b) => a.relPath.localeCompare(b.relPath, undefined, { numeric: true }));
}

/** States in which a job is under way for the file (counted as "running"). */
export function isActive(file: HotFileView): boolean {
  return file.state === 'uploading' || file.state === 'submitting' || file.state === 'running';
}

/** The last part of a path, whichever separator the host uses. */
export function baseName(path: string): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return cut < 0 ? path : path.slice(cut + 1);
}

/** A time of day for "next try at", in the user's locale. */
export type TimeFormatter = (epochMs: number) => string;

/** The error column: why it failed or waits, how many attempts so far, and when it tries again. */
export function describeFileProblem(file: HotFileView, formatTime: TimeFormatter): string | null {
  if (file.state === 'duplicate') return file.duplicateOf ? `Same content as ${file.duplicateOf}` : 'Same content as a file already processed';
  if (!file.reason) return null;
  const parts = [file.reason];
  if (file.attempts > 0) parts.push(file.attempts === 1 ? '1 attempt' : `${file.attempts} attempts`);
  if (file.retryAt !== null && file.state !== 'done' && file.state !== 'failed') parts.push(`next try at ${formatTime(file.retryAt)}`);
  return parts.join(' · ');
}

// What changed between two views of the same job, as the renderer would show it: nothing (only
// `updatedAt` moved), only the running progress (step counter, overall share, current node, its
// caption), or something else (phase, status, outputs, error, reachability). Main's JobUpdateGate
// uses it to drop and space out job.update events; the renderer's jobs store uses it to let a
// progress-only change ride along with the next live-preview frame (one frame on screen instead of
// two). One definition, so the two sides agree on what "only progress" means.
import type { JobSnapshotView } from './ipc/contract';

export type JobViewChange = 'same' | 'progress' | 'other';

/** The fields a progress-only change may touch; any other difference is 'other'. */
const PROGRESS_FIELDS = new Set<keyof JobSnapshotView>(['updatedAt', 'currentNode', 'progress', 'overall', 'nodesDone', 'progressText']);

/** Compares two views field by field, ignoring updatedAt. */
export function compareViews(previous: JobSnapshotView, next: JobSnapshotView): JobViewChange {
  let result: 'same' | 'progress' = 'same';
  for (const key of Object.keys(next) as (keyof JobSnapshotView)[]) {
    if (key === 'updatedAt') continue;
    if (sameValue(previous[key], next[key])) continue;
    if (!PROGRESS_FIELDS.has(key)) return 'other';
    result = 'progress';
  }
  // A field the previous view had and the next one lacks (origin is optional).
  for (const key of Object.keys(previous) as (keyof JobSnapshotView)[]) if (!(key in next)) return 'other';
  return result;
}

/** Structural equality of the JSON-like values a view holds. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

// Who puts a finished job's outputs into the library, decided from the origin stored on the job's
// journal record (written before or with its submit), never from memory: a job that ends while the
// app is still starting (its hot folders not yet running) is routed the same as any other.
import type { JobOrigin } from './types';

/**
 * - 'record': the library records the outputs directly, with the workflow as provenance (the app's
 *   window, `flowdeck run`, jobs of unknown origin, and a hot folder's jobs once that folder was
 *   removed while they were in flight);
 * - 'hot-folder': the hot folder that sent the job imports them itself, with its input file as their
 *   source, so the library must not record them a second time.
 */
export type OutputRoute = 'record' | 'hot-folder';

export function outputRouteOf(record: { origin: JobOrigin | null; libraryTakesOutputs: boolean } | null): OutputRoute {
  return record?.origin === 'hot-folder' && !record.libraryTakesOutputs ? 'hot-folder' : 'record';
}

// "Retry failed" for one file of a hot folder: whether it can go again, and in which state. A file
// that is gone is skipped (its outputs could not be collected, though, is collected again: the job
// ran). An input the server refused is checked again here: the same bytes are still no image, so
// they fail at once rather than being sent to be refused.
import type { HashResult } from './content-hash';
import type { Entry } from './runner-entry';
import { existsSync } from 'node:fs';

export interface RetryContext {
  /** The file's hash and image check; null when it cannot be read. */
  inspect(path: string): Promise<HashResult | null>;
  /** Fails the file again (its input is still no image), with the reason. */
  fail(entry: Entry, reason: string): Promise<void>;
  save(entry: Entry): Promise<void>;
}

/** 'queued': the caller queues the file; 'failed': it failed again at once; 'skipped': not retried. */
export async function prepareRetry(entry: Entry, ctx: RetryContext): Promise<'queued' | 'failed' | 'skipped'> {
  const r = entry.record;
  if (r.state !== 'failed') return 'skipped';
  if (r.failedPhase !== 'collect' && !existsSync(r.path)) return 'skipped';
  if (r.failedPhase === 'input') {
    const verdict = await ctx.inspect(r.path);
    if (!verdict || (verdict.sha256 === r.imageSha256 && verdict.image && !verdict.image.ok)) {
      await ctx.fail(entry, verdict?.image && !verdict.image.ok ? verdict.image.reason : (r.reason ?? 'The file cannot be read.'));
      return 'failed';
    }
  }
  // A job that ran but whose outputs could not be collected is collected again, not rerun.
  const collectAgain = r.failedPhase === 'collect' && r.promptId !== null;
  r.state = collectAgain ? 'submitted' : 'discovered';
  if (!collectAgain) r.promptId = null;
  r.attempts = 0;
  r.reason = null;
  r.failedPhase = null;
  entry.sentHere = false;
  await ctx.save(entry);
  return 'queued';
}

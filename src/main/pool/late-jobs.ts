// A job given up on a pool server that stopped answering has run again elsewhere. When that
// server answers again and still has the job, it is cancelled there (pending: removed from the
// queue; running on a local server: interrupted by its id). A job that already finished there is
// left alone and its outputs are never collected. The cloud cannot stop one running job without
// stopping all of the account's, so there a running late job is left to finish, and ignored.
import { askServer } from '@main/jobs/server-verdict';
import type { PoolMember } from './server-pool';

/** Cancels `promptId` on `member` if it is still queued or running there; returns a note for the user, or null. */
export async function cancelLateJob(member: PoolMember, promptId: string): Promise<string | null> {
  const verdict = await askServer(member.api, promptId);
  if (verdict.kind !== 'in_flight') return null;
  const { stillRunning } = await member.api.cancel([promptId]);
  if (stillRunning.length > 0) {
    return `${member.name} came back still running job ${promptId}, which was given up and run on another server; it cannot be stopped alone there, so it finishes and its outputs are ignored.`;
  }
  return `${member.name} came back with job ${promptId}, which had been run on another server meanwhile; it was cancelled there.`;
}

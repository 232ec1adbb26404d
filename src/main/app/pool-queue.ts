// One pool server's queue for the Queue view's column: the server's own (v1's /api/queue), or, on
// a server that has none (it speaks only Comfy API v2: a serverless deployment, a bare proxy),
// the unfinished jobs this app sent it, from the job journal. Which it is, the server's
// capabilities say, never the profile's kind: a plain local or cloud profile may point at a
// v2-only address, found out when the read makes the connection (no extra request).
import type { QueueView } from '@shared/ipc/contract';
import type { JobRecord } from '@main/jobs/job-store';
import type { ServiceApi } from '@main/service/ports';
import { queueView } from './session';

/** A server's queue as read; `ownJobsOnly`: it has no queue, the lists are the app's own jobs there. */
export interface ServerQueueRead extends QueueView {
  ownJobsOnly: boolean;
}

export async function readServerQueue(api: ServiceApi, inFlight: () => Promise<readonly JobRecord[]>): Promise<ServerQueueRead> {
  if (api.capabilities.serverQueue) {
    try {
      return { ...queueView(await api.getQueue()), ownJobsOnly: false };
    } catch (error) {
      // Until connected, the capabilities are the profile's word; the server's may say otherwise.
      if (api.capabilities.serverQueue) throw error;
    }
  }
  const mine = (await inFlight()).filter((job) => job.baseUrl === api.profile.baseUrl);
  const entry = (job: JobRecord): QueueView['running'][number] => ({ promptId: job.promptId, number: null });
  return {
    running: mine.filter((job) => job.phase === 'running').map(entry),
    pending: mine.filter((job) => job.phase !== 'running').map(entry),
    ownJobsOnly: true,
  };
}

/** What a column says of a server without a queue, in plain words. */
export function ownJobsNote(read: QueueView): string {
  const count = read.running.length + read.pending.length;
  return `No server queue (Comfy API v2): ${count === 0 ? 'no unfinished jobs' : count === 1 ? '1 unfinished job' : `${count} unfinished jobs`} sent from here.`;
}

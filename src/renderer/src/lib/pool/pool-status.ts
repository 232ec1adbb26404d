// The pool's status in words for the status line: jobs per server, throughput, and the servers
// out of rotation with the reason.
import type { PoolStatusView } from '@shared/ipc/contract';

export interface PoolStatusLine {
  /** "GPU 1: 2 running · GPU 2: 1 running" */
  perServer: string;
  /** "12 jobs/min" */
  throughput: string;
  /** One line per server out of rotation: "GPU 2 out of rotation: the server cannot be reached". */
  out: string[];
}

export function poolStatusLine(status: PoolStatusView): PoolStatusLine | null {
  if (!status.active || status.members.length === 0) return null;
  const inRotation = status.members.filter((m) => m.inRotation);
  return {
    perServer: inRotation.map((m) => `${m.name}: ${m.running}${m.concurrency === null ? '' : `/${m.concurrency}`} running, ${m.done} done`).join(' · '),
    throughput: `${status.jobsPerMinute} job${status.jobsPerMinute === 1 ? '' : 's'}/min`,
    out: status.members.filter((m) => !m.inRotation).map((m) => `${m.name} out of rotation: ${m.reason ?? 'not answering'}`),
  };
}

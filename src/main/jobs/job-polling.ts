// The tracker's polling: one timer ticks while any job is active, and each tick asks the status
// endpoint about the jobs the socket cannot vouch for (socket not connected, job gone quiet, or a
// job whose events go to another client's socket). A terminal status ends the job through the
// tracker; a status the server cannot place leads to a direct check of whether it still knows it.
import type { JobStatusReading } from '@main/service/types';
import type { JobState } from './job-state';
import { askServer, isNotFound } from './server-verdict';
import { describeError } from '@shared/describe-error';
import type { TrackerHost } from './tracker-host';
import { isTerminalPhase } from './types';

/** What the poller needs from the tracker it works for. */
export type JobPollerHost = Pick<
  TrackerHost,
  | 'api'
  | 'events'
  | 'jobs'
  | 'clock'
  | 'journal'
  | 'pollIntervalMs'
  | 'staleAfterMs'
  | 'isDisposed'
  | 'emit'
  | 'warn'
  | 'guard'
  | 'afterChange'
  | 'finishByStatus'
  | 'applyVerdict'
  | 'noteUnreachable'
  | 'noteReachable'
>;

export class JobPoller {
  private pollTimer: unknown = null;

  constructor(private readonly host: JobPollerHost) {}

  /** Arms the polling timer for `delay` ms, unless it is armed already or no job is active. */
  schedule(delay: number): void {
    if (this.host.isDisposed() || this.pollTimer !== null) return;
    if (![...this.host.jobs.values()].some((job) => !job.ended)) return;
    this.pollTimer = this.host.clock.setTimeout(() => {
      this.pollTimer = null;
      this.host.guard(() => this.tick());
    }, delay);
  }

  /** Disarms the polling timer (a later schedule() arms it afresh). */
  cancelScheduled(): void {
    if (this.pollTimer !== null) this.host.clock.clearTimeout(this.pollTimer);
    this.pollTimer = null;
  }

  async poll(job: JobState): Promise<void> {
    if (job.ended || job.finishing || job.pollInFlight || this.host.isDisposed()) return;
    job.pollInFlight = true;
    try {
      if (job.needsCheck) {
        await this.checkLost(job);
        return;
      }
      let reading: JobStatusReading;
      try {
        reading = await this.host.api.getJobStatus(job.promptId);
      } catch (error) {
        if (isNotFound(error)) {
          await this.checkLost(job);
          return;
        }
        this.host.warn(`Could not poll job ${job.promptId}: ${describeError(error)}`);
        if (this.host.events.state !== 'connected') this.host.noteUnreachable(job, describeError(error));
        return;
      }
      this.host.noteReachable(job);
      if (this.host.isDisposed() || job.ended || job.finishing) return;
      if (isTerminalPhase(reading.phase)) {
        await this.host.finishByStatus(job, reading, null);
        return;
      }
      if (!reading.known && this.host.api.capabilities.jobStatus === 'queue-and-history') {
        // A local status is derived from queue and history; an unclassified answer may mean the
        // server has forgotten the job (restarted): check directly.
        await this.checkLost(job);
        return;
      }
      this.applyInFlight(job, reading);
    } finally {
      job.pollInFlight = false;
    }
  }

  /** Takes in a status reading of a job still pending or running (journaled and told when it changed). */
  applyInFlight(job: JobState, reading: JobStatusReading): void {
    const before = job.phase;
    const rawBefore = job.rawStatus;
    if (reading.phase === 'pending' && reading.known) job.seenQueued = true;
    if (reading.phase === 'running') job.markRunning(this.host.clock.now(), reading.raw);
    else job.rawStatus = reading.raw;
    if (job.phase !== before || job.rawStatus !== rawBefore) {
      this.host.journal.writePhase(job);
      this.host.emit(job);
    }
    this.host.afterChange();
  }

  private tick(): void {
    if (this.host.isDisposed()) return;
    const now = this.host.clock.now();
    const connected = this.host.events.state === 'connected';
    for (const job of this.host.jobs.values()) {
      if (job.ended || job.finishing || job.pollInFlight) continue;
      if (job.pollAlways || !connected || now - job.lastActivityAt >= this.host.staleAfterMs) void this.poll(job);
    }
    this.schedule(this.host.pollIntervalMs);
  }

  /** Asks the server directly whether it still knows `job`; ends it as lost when it does not. */
  private async checkLost(job: JobState): Promise<void> {
    const verdict = await askServer(this.host.api, job.promptId);
    if (this.host.isDisposed() || job.ended || job.finishing) return;
    await this.host.applyVerdict(job, verdict);
  }
}

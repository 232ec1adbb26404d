// Folds the events socket's frames into the followed jobs: which job a frame belongs to (frames
// of jobs not tracked yet are kept for track() to replay), progress and outputs journaled as they
// come, live previews handed to listeners, and a job's terminal event passed to the tracker to end
// it. Polling, and ending a job, are not done here (see job-polling.ts and the tracker).
import type { PreviewEvent, ServerEvent } from '@main/service/types';
import { toJobError } from './error-explanations';
import { PendingEventBuffer } from './event-buffer';
import type { JobState } from './job-state';
import type { TrackerHost } from './tracker-host';
import type { PreviewUpdate } from './tracker-types';

/** What the event router needs from the tracker it works for. */
export type JobEventHost = Pick<TrackerHost, 'jobs' | 'clock' | 'journal' | 'collect' | 'isDisposed' | 'emit' | 'afterChange' | 'guard' | 'finishByEvent'>;

export class JobEventRouter {
  private readonly buffer = new PendingEventBuffer();
  private readonly previewListeners = new Set<(preview: PreviewUpdate) => void>();
  /** The job the socket last showed executing: type-1 previews and TEXT frames carry no prompt id. */
  private currentPrompt: string | null = null;

  constructor(private readonly host: JobEventHost) {}

  onPreview(listener: (preview: PreviewUpdate) => void): () => void {
    this.previewListeners.add(listener);
    return () => this.previewListeners.delete(listener);
  }

  handleEvent(event: ServerEvent): void {
    if (this.host.isDisposed()) return;
    switch (event.type) {
      case 'status':
      case 'notification':
      case 'feature_flags':
      case 'unknown':
        return;
      case 'preview':
        this.handlePreview(event);
        return;
      case 'progress_text': {
        const job = this.attributed(null);
        if (job) {
          this.handleJobEvent(job, event);
          this.host.afterChange();
        }
        return;
      }
      default:
        break;
    }
    const promptId = event.promptId ?? this.currentPrompt;
    this.noteExecuting(event, promptId);
    if (promptId === null) return;
    const job = this.host.jobs.get(promptId);
    if (!job) {
      this.buffer.add(promptId, event);
      return;
    }
    if (job.ended) return;
    this.handleJobEvent(job, event);
    this.host.afterChange();
  }

  /** Applies the events that arrived for a job before track() was called for it. */
  replayBuffered(job: JobState): void {
    for (const event of this.buffer.take(job.promptId)) {
      if (job.ended) break;
      this.handleJobEvent(job, event);
    }
  }

  /** A job ended: it is no longer the one the socket shows executing. */
  jobEnded(promptId: string): void {
    if (this.currentPrompt === promptId) this.currentPrompt = null;
  }

  /** The socket disconnected: which job is executing is no longer known. */
  connectionLost(): void {
    this.currentPrompt = null;
  }

  /** Drops the events kept for jobs not tracked yet. */
  clear(): void {
    this.buffer.clear();
  }

  /** Keeps `currentPrompt` on the job this socket shows executing (any job, ours or not). */
  private noteExecuting(event: ServerEvent, promptId: string | null): void {
    switch (event.type) {
      case 'execution_start':
      case 'execution_cached':
      case 'progress':
      case 'progress_state':
      case 'executed':
        this.currentPrompt = promptId;
        return;
      case 'executing':
        if (event.node !== null) this.currentPrompt = promptId;
        else if (promptId === null || this.currentPrompt === promptId) this.currentPrompt = null;
        return;
      case 'execution_success':
      case 'execution_error':
      case 'execution_interrupted':
        if (this.currentPrompt === promptId) this.currentPrompt = null;
        return;
      default:
        return;
    }
  }

  private handleJobEvent(job: JobState, event: ServerEvent): void {
    const now = this.host.clock.now();
    switch (event.type) {
      case 'execution_success':
        job.lastActivityAt = now;
        void this.host.finishByEvent(job, 'succeeded', 'execution_success', null);
        return;
      case 'execution_error':
        job.lastActivityAt = now;
        void this.host.finishByEvent(
          job,
          'failed',
          'execution_error',
          toJobError({
            exceptionType: event.exceptionType,
            message: event.exceptionMessage,
            nodeId: event.nodeId,
            nodeType: event.nodeType,
            traceback: event.traceback,
          }),
        );
        return;
      case 'execution_interrupted':
        job.lastActivityAt = now;
        void this.host.finishByEvent(job, 'cancelled', 'execution_interrupted', null);
        return;
      default: {
        const before = job.phase;
        const added = job.apply(event, now, this.host.collect);
        if (added.length > 0) this.host.journal.writeOutputs(job.promptId, added);
        if (job.phase !== before) this.host.journal.writePhaseSoon(job);
        this.host.emit(job);
      }
    }
  }

  private handlePreview(event: PreviewEvent): void {
    const job = this.attributed(event.promptId);
    if (!job) return;
    const now = this.host.clock.now();
    const nodeId = event.nodeId ?? event.displayNodeId ?? job.currentNode;
    job.setPreview({ nodeId, mime: event.mime, bytes: event.bytes, receivedAt: now });
    job.lastActivityAt = now;
    if (job.markRunning(now)) this.host.journal.writePhaseSoon(job);
    for (const listener of this.previewListeners) {
      this.host.guard(() => listener({ promptId: job.promptId, nodeId, mime: event.mime, bytes: event.bytes }));
    }
    this.host.emit(job);
  }

  /**
   * The followed, still active job a frame belongs to: the prompt id it carries, else the job this
   * socket shows executing, else (having missed that) the only job of ours known to be running.
   */
  private attributed(promptId: string | null): JobState | null {
    const id = promptId ?? this.currentPrompt;
    if (id !== null) {
      const job = this.host.jobs.get(id);
      return job && !job.ended ? job : null;
    }
    let only: JobState | null = null;
    for (const job of this.host.jobs.values()) {
      if (job.ended || job.phase !== 'running') continue;
      if (only) return null;
      only = job;
    }
    return only;
  }
}

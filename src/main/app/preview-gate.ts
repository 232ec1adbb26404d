// Latest-wins back-pressure for live previews. A sampler can send frames faster than the renderer
// decodes them; queueing them would grow memory and show stale images late. Per job, at most one
// frame is in flight (sent, not yet acknowledged by the renderer) and at most one waits: a new
// frame replaces the waiting one. The acknowledgement releases the waiting frame.
import type { PreviewView } from '@shared/ipc/contract';

export type PreviewFrame = Omit<PreviewView, 'seq'>;

interface JobLane {
  nextSeq: number;
  inFlight: number | null;
  waiting: PreviewFrame | null;
  sent: number;
  replaced: number;
  /** The job ended: drop the lane once nothing is in flight or waiting. */
  ended: boolean;
}

export interface PreviewLaneStats {
  sent: number;
  replaced: number;
  inFlight: boolean;
  waiting: boolean;
}

export class PreviewGate {
  private readonly lanes = new Map<string, JobLane>();

  constructor(private readonly send: (frame: PreviewView) => void) {}

  offer(frame: PreviewFrame): void {
    const lane = this.lane(frame.promptId);
    if (lane.inFlight === null) this.dispatch(lane, frame);
    else {
      if (lane.waiting) lane.replaced += 1;
      lane.waiting = frame;
    }
  }

  /** The renderer has finished with frame `seq` of the job; stale or unknown acks are ignored. */
  ack(promptId: string, seq: number): void {
    const lane = this.lanes.get(promptId);
    if (!lane || lane.inFlight !== seq) return;
    lane.inFlight = null;
    const next = lane.waiting;
    lane.waiting = null;
    if (next) this.dispatch(lane, next);
    else if (lane.ended) this.lanes.delete(promptId);
  }

  /** The job has ended: its lane goes away once its last frames are through. */
  end(promptId: string): void {
    const lane = this.lanes.get(promptId);
    if (!lane) return;
    lane.ended = true;
    if (lane.inFlight === null && lane.waiting === null) this.lanes.delete(promptId);
  }

  /** A new renderer (reload): nothing it had is in flight any more; resend what waits. */
  reset(): void {
    for (const [promptId, lane] of this.lanes) {
      lane.inFlight = null;
      const next = lane.waiting;
      lane.waiting = null;
      if (next) this.dispatch(lane, next);
      else if (lane.ended) this.lanes.delete(promptId);
    }
  }

  stats(promptId: string): PreviewLaneStats | null {
    const lane = this.lanes.get(promptId);
    return lane ? { sent: lane.sent, replaced: lane.replaced, inFlight: lane.inFlight !== null, waiting: lane.waiting !== null } : null;
  }

  private lane(promptId: string): JobLane {
    let lane = this.lanes.get(promptId);
    if (!lane) {
      lane = { nextSeq: 1, inFlight: null, waiting: null, sent: 0, replaced: 0, ended: false };
      this.lanes.set(promptId, lane);
    }
    return lane;
  }

  private dispatch(lane: JobLane, frame: PreviewFrame): void {
    const seq = lane.nextSeq++;
    lane.inFlight = seq;
    lane.sent += 1;
    this.send({ ...frame, seq });
  }
}

// The v2 surface's fault switches (types.ts V2Faults), consulted by its routes.
import type { V2Faults } from './types';

export type SubmitFault = { kind: 'not_ready' | 'queue_full'; seconds: number } | null;

export class V2FaultState implements V2Faults {
  private notReadyLeft = 0;
  private notReadySeconds = 1;
  private queueFullLeft = 0;
  private queueFullSeconds = 1;
  private loseLeft = 0;
  private dropLeft = 0;
  holdAnswerMs = 0;
  streams: false | true | '501' = false;
  cancelsIgnored = false;

  ignoreCancels(ignore: boolean): void {
    this.cancelsIgnored = ignore;
  }

  notReady(count: number, seconds = 1): void {
    this.notReadyLeft = Math.max(0, Math.floor(count));
    this.notReadySeconds = seconds;
  }

  queueFull(count: number, seconds = 1): void {
    this.queueFullLeft = Math.max(0, Math.floor(count));
    this.queueFullSeconds = seconds;
  }

  loseSubmitAnswers(count: number): void {
    this.loseLeft = Math.max(0, Math.floor(count));
  }

  dropSubmitsBeforeCreating(count: number): void {
    this.dropLeft = Math.max(0, Math.floor(count));
  }

  holdSubmitAnswers(ms: number): void {
    this.holdAnswerMs = Math.max(0, ms);
  }

  refuseStreams(mode: false | true | '501'): void {
    this.streams = mode;
  }

  reset(): void {
    this.notReadyLeft = this.queueFullLeft = this.loseLeft = this.dropLeft = this.holdAnswerMs = 0;
    this.streams = false;
    this.cancelsIgnored = false;
  }

  /** Whether this submit's connection is to be closed before anything is read (consumes one). */
  takeDropBefore(): boolean {
    if (this.dropLeft === 0) return false;
    this.dropLeft -= 1;
    return true;
  }

  /** The refusal this submit meets once its key is claimed (consumes one). */
  takeSubmitFault(): SubmitFault {
    if (this.notReadyLeft > 0) {
      this.notReadyLeft -= 1;
      return { kind: 'not_ready', seconds: this.notReadySeconds };
    }
    if (this.queueFullLeft > 0) {
      this.queueFullLeft -= 1;
      return { kind: 'queue_full', seconds: this.queueFullSeconds };
    }
    return null;
  }

  /** Whether this created job's answer is to be lost (consumes one). */
  takeLostAnswer(): boolean {
    if (this.loseLeft === 0) return false;
    this.loseLeft -= 1;
    return true;
  }
}

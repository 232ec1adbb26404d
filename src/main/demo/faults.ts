// The fault switches tests flip to exercise a client's recovery paths. The state lives here; the
// router (delay, 500s), the events hub (silence, drops, malformed frames), the executor (the step
// at which sockets drop) and the URL signer (expiry) consult it.
import type { DemoFaults } from './types';

interface FailRule {
  remaining: number;
  pathIncludes: string | undefined;
}

export class FaultState implements DemoFaults {
  private dropAtStep: number | null = null;
  private silentUntil = 0;
  private delayMs = 0;
  private failRules: FailRule[] = [];
  private malformedArmed = false;
  private readonly onExpireSignedUrls: () => void;

  constructor(hooks: { onExpireSignedUrls: () => void }) {
    this.onExpireSignedUrls = hooks.onExpireSignedUrls;
  }

  dropSocketsMidJob(atStep = 1): void {
    this.dropAtStep = Math.max(1, Math.floor(atStep));
  }

  goSilent(ms: number): void {
    this.silentUntil = Date.now() + Math.max(0, ms);
  }

  setResponseDelay(ms: number): void {
    this.delayMs = Math.max(0, ms);
  }

  fail500(count: number, pathIncludes?: string): void {
    if (count > 0) this.failRules.push({ remaining: Math.floor(count), pathIncludes });
  }

  sendMalformedFrames(enabled: boolean): void {
    this.malformedArmed = enabled;
  }

  expireSignedUrls(): void {
    this.onExpireSignedUrls();
  }

  reset(): void {
    this.dropAtStep = null;
    this.silentUntil = 0;
    this.delayMs = 0;
    this.failRules = [];
    this.malformedArmed = false;
  }

  // ---- consulted by the server's parts ----

  get responseDelayMs(): number {
    return this.delayMs;
  }

  isSilent(): boolean {
    return Date.now() < this.silentUntil;
  }

  /** Whether this request (by path and query) is to be failed; consumes one from the first matching rule. */
  takeFailure(pathAndQuery: string): boolean {
    const rule = this.failRules.find((r) => r.pathIncludes === undefined || pathAndQuery.includes(r.pathIncludes));
    if (!rule) return false;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.failRules = this.failRules.filter((r) => r !== rule);
    return true;
  }

  /** Called at each progress step of a job (counted from 1); true once, at the armed step. */
  takeSocketDrop(stepInJob: number): boolean {
    if (this.dropAtStep === null || stepInJob < this.dropAtStep) return false;
    this.dropAtStep = null;
    return true;
  }

  /** Called when a job starts: whether this job sends malformed frames (the switch then disarms). */
  takeMalformedFrames(): boolean {
    if (!this.malformedArmed) return false;
    this.malformedArmed = false;
    return true;
  }
}

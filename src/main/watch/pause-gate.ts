// Whether a hot folder may send new files: paused by the user (until Resume), or paused by itself
// for an account problem (401/402/429), in which case one file is let through after each re-check
// interval to see whether the problem is fixed. Files the server already has are collected
// regardless (the runner does not ask the gate for those).
import { pauseExplanation } from './policy';
import type { PauseKind } from './types';

export interface PauseGateDeps {
  recheckMs: number;
  isStopping(): boolean;
  /** The re-check interval passed: a probe may go now. */
  probe(): void;
}

export class PauseGate {
  private pausedNow = false;
  private kindNow: PauseKind | null = null;
  private reasonNow: string | null = null;
  /** One entry may run while the folder is paused for an account problem, to see whether it is fixed. */
  private probeAllowed = false;
  private recheckTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly deps: PauseGateDeps,
    startPaused: boolean,
  ) {
    if (startPaused) {
      this.pausedNow = true;
      this.kindNow = 'user';
    }
  }

  get paused(): boolean {
    return this.pausedNow;
  }

  get kind(): PauseKind | null {
    return this.kindNow;
  }

  get reason(): string | null {
    return this.reasonNow;
  }

  /** Paused for an account problem (not by the user): a file that gets through means it is fixed. */
  get pausedForAccount(): boolean {
    return this.pausedNow && this.kindNow !== 'user';
  }

  pauseByUser(): void {
    this.pausedNow = true;
    this.kindNow = 'user';
    this.reasonNow = null;
    this.probeAllowed = false;
    this.cancelRecheck();
  }

  lift(): void {
    this.pausedNow = false;
    this.kindNow = null;
    this.reasonNow = null;
    this.probeAllowed = false;
    this.cancelRecheck();
  }

  /** Pauses for an account problem; false (and nothing changes) when the user has paused the folder. */
  pauseFor(kind: Exclude<PauseKind, 'user'>, serverText: string): boolean {
    if (this.pausedNow && this.kindNow === 'user') return false;
    this.pausedNow = true;
    this.kindNow = kind;
    this.reasonNow = pauseExplanation(kind, serverText);
    this.probeAllowed = false;
    this.scheduleRecheck();
    return true;
  }

  /** Whether files not yet sent must wait (paused, and no probe is due). */
  holdsNewWork(): boolean {
    return this.pausedNow && !(this.probeAllowed && this.kindNow !== 'user');
  }

  /** A file not yet sent is about to go. */
  letThrough(): void {
    if (this.pausedNow) {
      // This one is the probe; should it neither succeed nor hit the same refusal (a network
      // error, say), the next re-check still comes.
      this.probeAllowed = false;
      this.scheduleRecheck();
    }
  }

  dispose(): void {
    this.cancelRecheck();
  }

  private cancelRecheck(): void {
    if (this.recheckTimer) clearTimeout(this.recheckTimer);
    this.recheckTimer = null;
  }

  /** After the re-check interval, one file may go: if it gets through, the folder resumes. */
  private scheduleRecheck(): void {
    if (this.recheckTimer) clearTimeout(this.recheckTimer);
    this.recheckTimer = setTimeout(() => {
      this.recheckTimer = null;
      if (!this.pausedNow || this.kindNow === 'user' || this.deps.isStopping()) return;
      this.probeAllowed = true;
      this.deps.probe();
    }, this.deps.recheckMs);
  }
}

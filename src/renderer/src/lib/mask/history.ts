// Undo and redo by whole steps (a stroke, a line, an invert, a clear) with bounded memory.
// A step that changed pixels keeps only the tiles it changed, holding "the other state" of each:
// undoing swaps them with the mask, which leaves the undone state in the entry for redo, so one
// copy serves both directions. An invert keeps nothing (it is its own inverse). When the kept bytes
// exceed the budget, or there are more steps than the cap, the oldest steps are forgotten; the
// newest step is always kept, so the bound is the budget plus one step (at most one mask's size).

export interface TilePatch {
  index: number;
  data: Uint8Array;
}

export type HistoryEntry = { kind: 'patch'; tiles: TilePatch[]; bytes: number } | { kind: 'invert' };

export interface HistoryLimits {
  /** Bytes of tile data kept for undo/redo (default 256 MiB). */
  budgetBytes: number;
  /** Steps kept (default 500). */
  maxEntries: number;
}

export const DEFAULT_HISTORY_LIMITS: HistoryLimits = { budgetBytes: 256 * 1024 * 1024, maxEntries: 500 };

export function entryBytes(entry: HistoryEntry): number {
  return entry.kind === 'patch' ? entry.bytes : 0;
}

export class History {
  readonly limits: HistoryLimits;
  #entries: HistoryEntry[] = [];
  /** How many of #entries are applied (the rest can be redone). */
  #applied = 0;
  #bytes = 0;

  constructor(limits: Partial<HistoryLimits> = {}) {
    this.limits = { ...DEFAULT_HISTORY_LIMITS, ...limits };
  }

  get bytes(): number {
    return this.#bytes;
  }

  get canUndo(): boolean {
    return this.#applied > 0;
  }

  get canRedo(): boolean {
    return this.#applied < this.#entries.length;
  }

  /** Steps that can be undone. */
  get undoDepth(): number {
    return this.#applied;
  }

  get redoDepth(): number {
    return this.#entries.length - this.#applied;
  }

  /** Records a new step: forgets whatever could be redone, then trims to the limits. */
  push(entry: HistoryEntry): void {
    for (const dropped of this.#entries.splice(this.#applied)) this.#bytes -= entryBytes(dropped);
    this.#entries.push(entry);
    this.#applied = this.#entries.length;
    this.#bytes += entryBytes(entry);
    while (this.#entries.length > 1 && (this.#bytes > this.limits.budgetBytes || this.#entries.length > this.limits.maxEntries)) {
      const oldest = this.#entries.shift()!;
      this.#applied -= 1;
      this.#bytes -= entryBytes(oldest);
    }
  }

  /** The step to undo (the caller applies it), or null. */
  takeUndo(): HistoryEntry | null {
    if (this.#applied === 0) return null;
    this.#applied -= 1;
    return this.#entries[this.#applied] ?? null;
  }

  takeRedo(): HistoryEntry | null {
    if (this.#applied >= this.#entries.length) return null;
    const entry = this.#entries[this.#applied] ?? null;
    this.#applied += 1;
    return entry;
  }

  clear(): void {
    this.#entries = [];
    this.#applied = 0;
    this.#bytes = 0;
  }
}

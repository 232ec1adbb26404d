// Events for prompt ids nobody tracks yet. A job's events can arrive between the server accepting
// the submit and the caller calling track() (a job served from cache can even finish in that
// window); keeping the last few of them lets track() replay what it would otherwise have missed.
// Bounded on both axes so events of other users' jobs (the cloud broadcasts them) cannot pile up.
import type { ServerEvent } from '@main/service/types';

export class PendingEventBuffer {
  private readonly byPrompt = new Map<string, ServerEvent[]>();

  constructor(
    private readonly maxPrompts = 32,
    private readonly maxEventsPerPrompt = 256,
  ) {}

  add(promptId: string, event: ServerEvent): void {
    // Previews are large and only the latest matters; they are not worth replaying.
    if (event.type === 'preview') return;
    let list = this.byPrompt.get(promptId);
    if (!list) {
      list = [];
      this.byPrompt.set(promptId, list);
      while (this.byPrompt.size > this.maxPrompts) {
        const oldest = this.byPrompt.keys().next().value;
        if (oldest === undefined) break;
        this.byPrompt.delete(oldest);
      }
    }
    list.push(event);
    if (list.length > this.maxEventsPerPrompt) list.splice(0, list.length - this.maxEventsPerPrompt);
  }

  /** Removes and returns what was kept for `promptId`, oldest first. */
  take(promptId: string): ServerEvent[] {
    const list = this.byPrompt.get(promptId) ?? [];
    this.byPrompt.delete(promptId);
    return list;
  }

  clear(): void {
    this.byPrompt.clear();
  }
}

// The listeners of an EventStream (events-socket.ts over /ws, v2/events.ts over per-job event
// streams): who is told each event and each state change. One failing listener must not stop the
// others, nor the stream that calls them: its error is logged.
import type { ConnectionState, ServerEvent } from './types';

export class StreamListeners {
  readonly #events = new Set<(event: ServerEvent) => void>();
  readonly #states = new Set<(state: ConnectionState) => void>();

  constructor(
    private readonly log: (line: string) => void,
    private readonly who: string,
  ) {}

  onEvent(listener: (event: ServerEvent) => void): () => void {
    this.#events.add(listener);
    return () => this.#events.delete(listener);
  }

  onStateChange(listener: (state: ConnectionState) => void): () => void {
    this.#states.add(listener);
    return () => this.#states.delete(listener);
  }

  emit(event: ServerEvent): void {
    for (const listener of [...this.#events]) this.#call(() => listener(event), 'an event');
  }

  emitState(state: ConnectionState): void {
    for (const listener of [...this.#states]) this.#call(() => listener(state), 'a state');
  }

  clear(): void {
    this.#events.clear();
    this.#states.clear();
  }

  #call(tell: () => void, what: string): void {
    try {
      tell();
    } catch (error) {
      this.log(`${this.who}: ${what} listener threw: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

// Listeners of a stream of changes: each is called in turn, and one that throws is reported
// (onListenerError) without stopping the others or the change's producer.
export class ChangeFeed<C> {
  private readonly listeners = new Set<(change: C) => void>();

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  /** Adds a listener; returns its unsubscribe function. */
  on(listener: (change: C) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether anyone listens (a producer may skip building a change nobody reads). */
  listened(): boolean {
    return this.listeners.size > 0;
  }

  emit(change: C): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

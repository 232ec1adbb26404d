// The core's outgoing events, typed by the contract. Transports subscribe; every payload is
// checked against the contract's schema before it leaves, which also drops any field a producer
// did not mean to send.
import { events, type EventName, type EventPayload } from '@shared/ipc/contract';

export type AppEvent = { [E in EventName]: { name: E; payload: EventPayload<E> } }[EventName];
export type AppEventListener = (event: AppEvent) => void;

export class EventHub {
  private readonly listeners = new Set<AppEventListener>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => undefined) {}

  on(listener: AppEventListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit<E extends EventName>(name: E, payload: EventPayload<E>): void {
    const parsed = events[name].safeParse(payload);
    if (!parsed.success) {
      this.onListenerError(new Error(`event ${name} did not match the contract: ${parsed.error.message}`));
      return;
    }
    const event = { name, payload: parsed.data } as AppEvent;
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}

/**
 * Events that matter only in their latest state share a key, so a transport holding events for a
 * renderer that is not ready yet keeps one per key (see ReadyGate).
 */
export function eventKey(event: AppEvent): string | null {
  switch (event.name) {
    case 'job.update':
      return `job:${event.payload.promptId}`;
    case 'job.preview':
      return `preview:${event.payload.promptId}`;
    case 'connection.state':
      return 'connection';
    case 'queue.changed':
      return 'queue';
    case 'profiles.changed':
      return 'profiles';
    case 'hotFolders.changed':
      return `hot-folder:${event.payload.id}`;
    case 'hotFolders.file':
      return `hot-file:${event.payload.folderId}:${event.payload.path}`;
    case 'pool.status':
      return 'pool-status';
    case 'pool.changed':
      return 'pool';
    case 'app.notice':
      return `notice:${event.payload.message}`;
    case 'library.changed':
    case 'hotFolders.drained':
      // Each one matters (items added or removed, a batch finished): none replaces another.
      return null;
  }
}

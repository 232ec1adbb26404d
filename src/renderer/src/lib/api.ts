// The renderer's only way out: calls and events of the contract through `window.flowdeck`.
// Results and event payloads are checked against the contract's schemas here, once, so the
// stores can trust their shapes; a failed call becomes a CallError carrying the contract's code.
import {
  calls,
  events,
  type CallName,
  type CallResult,
  type EventName,
  type EventPayload,
  type FlowdeckApi,
  type InvokeArgs,
  type IpcError,
} from '@shared/ipc/contract';

export class CallError extends Error {
  readonly code: IpcError['code'];
  readonly details: unknown;

  constructor(error: IpcError) {
    super(error.message);
    this.name = 'CallError';
    this.code = error.code;
    this.details = error.details;
  }
}

export class Api {
  readonly #bridge: FlowdeckApi;

  constructor(bridge: FlowdeckApi) {
    this.#bridge = bridge;
  }

  /** Resolves with the call's result; rejects with a CallError carrying the contract's code. */
  async call<N extends CallName>(name: N, ...args: InvokeArgs<N>): Promise<CallResult<N>> {
    const envelope = await this.#bridge.invoke(name, ...args);
    if (!envelope.ok) throw new CallError(envelope.error);
    const checked = calls[name].result.safeParse(envelope.value);
    if (!checked.success) throw new CallError({ code: 'internal', message: `The app answered "${name}" in an unexpected shape.` });
    return checked.data as CallResult<N>;
  }

  /** Subscribes to an event; payloads that do not match the contract are dropped with a console note. */
  on<E extends EventName>(name: E, listener: (payload: EventPayload<E>) => void | Promise<void>): () => void {
    const schema = events[name];
    return this.#bridge.on(name, (payload) => {
      const checked = schema.safeParse(payload);
      if (!checked.success) {
        console.warn(`flowdeck: dropped a malformed "${name}" event`);
        return;
      }
      return listener(checked.data as EventPayload<E>);
    });
  }
}

/** The message of any failure, for display. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

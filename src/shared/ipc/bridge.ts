// Builds the `window.flowdeck` object from the contract's names over any transport: the preload
// passes one over ipcRenderer, the browser harness one over its WebSocket. The renderer therefore
// sees the very same frozen object whichever transport carries it.
//
// buildFlowdeckApi is SELF-CONTAINED on purpose (no imports used at runtime, no module-level
// references): the harness serves it to the page as `(${buildFlowdeckApi})(...)` source text, so
// the code running in the browser is this exact function.
import type { FlowdeckApi } from './contract';

/** What a transport provides: a request/answer per call, a one-way note, and a subscription per event name. */
export interface BridgeTransport {
  /** Resolves with the envelope the other side answered (`{ok, value}` / `{ok:false, error}`). */
  invoke(name: string, input: unknown): Promise<unknown>;
  /**
   * Sends a one-way note (names.ts NOTE_NAMES): the core validates its input as it does the call of
   * that name and answers nothing, so no answer crosses back and nothing waits for one here. A note
   * sent while the link is down is dropped (the ready call on reconnect resets what it was for).
   */
  notify(name: string, input: unknown): void;
  /** Returns an unsubscribe function. */
  subscribe(name: string, listener: (payload: unknown) => void): () => void;
}

export interface BridgeNames {
  calls: readonly string[];
  events: readonly string[];
  /** The event whose frames are acknowledged, and the note that acknowledges them. */
  previewEvent: string;
  previewAck: string;
}

export function buildFlowdeckApi(transport: BridgeTransport, names: BridgeNames): FlowdeckApi {
  const callSet = new Set(names.calls);
  const eventSet = new Set(names.events);
  type Listener = (payload: unknown) => unknown;
  const listeners = new Map<string, Set<Listener>>();

  const failure = (code: string, message: string): { ok: false; error: { code: string; message: string } } => ({ ok: false, error: { code, message } });

  const isEnvelope = (value: unknown): boolean => {
    if (typeof value !== 'object' || value === null) return false;
    const v = value as { ok?: unknown; error?: unknown };
    if (v.ok === true) return 'value' in v;
    return v.ok === false && typeof v.error === 'object' && v.error !== null;
  };

  const invoke = (name: string, input?: unknown): Promise<unknown> => {
    if (!callSet.has(name)) return Promise.resolve(failure('invalid_input', `"${String(name)}" is not a Flowdeck call.`));
    return Promise.resolve()
      .then(() => transport.invoke(name, input))
      .then(
        (answer) => (isEnvelope(answer) ? answer : failure('internal', `The app answered "${name}" with something unexpected.`)),
        (error: unknown) => failure('internal', `The call "${name}" could not reach the app: ${error instanceof Error ? error.message : String(error)}`),
      );
  };

  const dispatch = (name: string, payload: unknown): void => {
    const pending: unknown[] = [];
    for (const listener of Array.from(listeners.get(name) ?? [])) {
      try {
        pending.push(listener(payload));
      } catch (error) {
        console.error(`flowdeck: a "${name}" listener failed`, error);
      }
    }
    if (name !== names.previewEvent) return;
    // Latest-wins back-pressure: main sends a job's next preview only after this acknowledgement,
    // so a slow listener (one whose promise settles late) holds back frames instead of queueing them.
    // The acknowledgement is a one-way note: at up to 30 frames a second, an answer per frame
    // crossing back (and a promise waiting for it) bought nothing (bench/PROFILE-issue25.md).
    const frame = payload as { promptId?: unknown; seq?: unknown };
    if (typeof frame.promptId !== 'string' || typeof frame.seq !== 'number') return;
    const ack = { promptId: frame.promptId, seq: frame.seq };
    const acknowledge = (): void => {
      try {
        transport.notify(names.previewAck, ack);
      } catch (error) {
        console.error(`flowdeck: the "${names.previewAck}" note could not be sent`, error);
      }
    };
    const waits = pending.filter((value) => typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function');
    // Synchronous listeners: acknowledge now; one promise (the preview store's decode): wait for it alone.
    if (waits.length === 0) acknowledge();
    else if (waits.length === 1) void Promise.resolve(waits[0]).then(acknowledge, acknowledge);
    else void Promise.allSettled(waits).then(acknowledge);
  };

  const on = (name: string, listener: Listener): (() => void) => {
    if (!eventSet.has(name)) throw new TypeError(`"${String(name)}" is not a Flowdeck event.`);
    if (typeof listener !== 'function') throw new TypeError('The listener must be a function.');
    let set = listeners.get(name);
    if (!set) {
      set = new Set();
      listeners.set(name, set);
    }
    const wrapped: Listener = (payload) => listener(payload);
    set.add(wrapped);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      listeners.get(name)?.delete(wrapped);
    };
  };

  // Every event is subscribed once, up front: previews must be acknowledged even while no
  // listener is attached, or main would hold a job's latest frame back forever.
  for (const name of eventSet) transport.subscribe(name, (payload) => dispatch(name, payload));

  return Object.freeze({ invoke, on }) as unknown as FlowdeckApi;
}

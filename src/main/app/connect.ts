// The production wiring of a server connection: made on first need through connectService
// (lazy-connection.ts), which finds out without side effects whether the server speaks Comfy API
// v2 or v1 and builds that contract's client and event stream; both ask the key vault for the key
// at the moment they need it. What the profile says (a serverless deployment: v2 only; a proxy:
// v2 with the server's own API beside) comes in `hints`; callers ask capabilities, never the kind.
import { LazyConnection } from './lazy-connection';
import type { ConnectFactory } from './session';

export function createConnectFactory(options: { log?: (line: string) => void } = {}): ConnectFactory {
  return (server, apiKey, hints) => {
    const connection = new LazyConnection(server, { apiKey, ...(hints ? { hints } : {}), ...(options.log ? { log: options.log } : {}) });
    return { api: connection.api, events: connection.events };
  };
}

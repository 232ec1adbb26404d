// The production wiring of a server connection: the HTTP client and the events socket of
// src/main/service, both asking the key vault for the key at the moment they need it.
import { ServiceClient } from '@main/service/client';
import { EventsSocket } from '@main/service/events-socket';
import type { ConnectFactory } from './session';

export function createConnectFactory(options: { log?: (line: string) => void } = {}): ConnectFactory {
  return (server, apiKey) => ({
    api: new ServiceClient(server, { apiKey, ...(options.log ? { logger: options.log } : {}) }),
    events: new EventsSocket(server, { apiKey, ...(options.log ? { logger: options.log } : {}) }),
  });
}

// The one way a client for a server is made, whatever contract it speaks: discovery (discover.ts,
// no side effects) decides between the v1 ServiceClient with its events socket and the V2Client
// with its per-job event streams (and, on the cloud, v1 beside it for what v2 lacks). Callers get
// a ServiceApi and an EventStream, and ask `capabilities` (contract included), never the kind.
import { ServiceClient, type ServiceClientOptions } from '../client';
import { EventsSocket } from '../events-socket';
import { HttpTransport, transportOptions } from '../http';
import type { EventStream, ServiceApi } from '../ports';
import type { ServerProfile } from '../types';
import { V2Client } from './client';
import { discoverContract, type ContractDiscovery } from './discover';
import { V2Events } from './events';

export interface ConnectedService {
  api: ServiceApi;
  events: EventStream;
  discovery: ContractDiscovery;
}

export interface ConnectOptions extends ServiceClientOptions {
  /** A self-hosted proxy's companion: the server's own API (v1), for node definitions and the queue. */
  v1BaseUrl?: string | null;
  /** Skip discovery and speak this contract (a profile that says so). */
  contract?: 'v1' | 'v2';
  /** The last connection to this address found v2 (the CLI remembers it): discovery asks its two questions at once. */
  lastContract?: 'v1' | 'v2' | undefined;
  /** The events' client id (a lazily made connection names it before it knows the contract). */
  clientId?: string;
  signal?: AbortSignal;
}

export async function connectService(profile: ServerProfile, options: ConnectOptions): Promise<ConnectedService> {
  const probe = new HttpTransport(profile, transportOptions(options, { auth: 'bearer', retry: { retries: 1 } }));
  const discovery: ContractDiscovery =
    options.contract === 'v1'
      ? { contract: 'v1' }
      : await discoverContract(probe, { signal: options.signal, expectV2: options.contract === 'v2' || options.lastContract === 'v2' }).catch(
          (error: unknown) => {
            // A server that cannot be asked now is asked again by whatever comes next; v1 is the default.
            if (options.contract === 'v2') return { contract: 'v2' as const, needsKey: false, v1Beside: false };
            throw error;
          },
        );
  if (discovery.contract === 'v1') {
    return {
      api: new ServiceClient(profile, options),
      events: new EventsSocket(profile, {
        apiKey: options.apiKey,
        ...(options.clientId ? { clientId: options.clientId } : {}),
        ...(options.logger ? { logger: options.logger } : {}),
      }),
      discovery,
    };
  }
  const v1Profile: ServerProfile | null = options.v1BaseUrl ? { kind: 'local', baseUrl: options.v1BaseUrl } : discovery.v1Beside ? profile : null;
  const v1 = v1Profile ? new ServiceClient(v1Profile, options) : null;
  const api = new V2Client(profile, { ...options, v1, needsApiKey: discovery.needsKey });
  return { api, events: new V2Events(api, options.logger, options.clientId), discovery };
}

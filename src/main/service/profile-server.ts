// What a settings profile means to the service layer: the server it names (kind and address) and
// how to connect to it. cloud and local are discovered (v1, or v2 where the server has it); a
// serverless deployment speaks v2 only, with account keys as on the cloud; a self-hosted proxy
// speaks v2 at its address with the server's own API (v1) at `apiBaseUrl`, and takes a key only
// when it answers 401. The demo profile is resolved by the app (its address is the built-in one).
import type { ServerKind, ServerProfile } from './types';
import type { Profile } from '@main/config/settings';
import { normaliseBaseUrl } from '@main/config/settings';

export interface ProfileConnection {
  server: ServerProfile;
  /** The contract the profile says it speaks; absent: found out by discovery. */
  contract?: 'v2';
  /** The v1 API of the server behind a proxy. */
  v1BaseUrl?: string;
}

/** The service-layer kind of a profile: account keys (cloud, serverless, the demo's cloud flavour) or a server of one's own. */
export function serverKindOfProfile(profile: Pick<Profile, 'kind'>): ServerKind {
  return profile.kind === 'local' || profile.kind === 'proxy' ? 'local' : 'cloud';
}

/** The connection of a non-demo profile. */
export function profileConnection(profile: Profile): ProfileConnection {
  const server: ServerProfile = { kind: serverKindOfProfile(profile), baseUrl: profile.baseUrl };
  if (profile.kind === 'serverless') return { server, contract: 'v2' };
  if (profile.kind === 'proxy') return { server, contract: 'v2', ...(profile.apiBaseUrl ? { v1BaseUrl: normaliseBaseUrl(profile.apiBaseUrl) } : {}) };
  return { server };
}

// The connection calls: connection.test (what works with this profile's server and key, asked
// without side effects) and nodes.definitions (the server's node classes for the form).
import type { CallHandlers } from '@shared/ipc/contract';
import { ServiceError } from '@main/service/errors';
import type { ActiveServer } from './active-server';
import { problemOfServiceError, testWithoutKey } from './connection-problem';
import { nodeDefinitionsView } from './node-definitions';
import type { ProfileDirectory } from './profile-directory';

export interface ConnectionHandlerDeps {
  profiles: ProfileDirectory;
  active: ActiveServer;
}

export function createConnectionHandlers(deps: ConnectionHandlerDeps): Pick<CallHandlers, 'connection.test' | 'nodes.definitions'> {
  const { profiles, active } = deps;
  return {
    'connection.test': async (input) => {
      const profile = profiles.target(input?.profileId);
      const keyNeeded = profiles.needsKey(profile);
      const key = await profiles.keyFor(profile);
      // Without a key, what a keyless request can show: the server answers, and is a workflow server.
      if (keyNeeded && !key) return active.withApi(profile, (api) => testWithoutKey(api));
      return active.withApi(profile, async (api, active) => {
        const subscriptionActive = active?.subscriptionActive ?? null;
        try {
          // A server without node definitions (Comfy API v2 only) is tested by its discovery alone.
          const capabilities = await api.discover();
          if (!capabilities.nodeDefinitions) {
            // It answered our request (with the key, when one is set) with 401: the key is missing or wrong.
            const refused = capabilities.needsApiKey;
            return {
              reachable: true,
              keyAccepted: refused ? (key ? false : null) : key ? true : null,
              subscriptionActive,
              nodeCount: null,
              problem: refused ? (key ? 'key_rejected' : 'no_key') : null,
              skipped: ['the node types: this server speaks only Comfy API v2, so the form follows the workflow'],
              message: refused
                ? `${api.profile.baseUrl} speaks Comfy API v2 and ${key ? 'did not accept the API key' : 'needs an API key'}.`
                : `Connected to ${api.profile.baseUrl}: Comfy API v2 (no node definitions; forms follow each workflow's own values).`,
            };
          }
          // Fetched afresh; the active session keeps them, so the form shows what the test saw.
          const definitions = active ? await active.nodeDefinitions(true) : await api.getNodeDefinitions();
          return {
            reachable: true,
            keyAccepted: keyNeeded ? true : null,
            subscriptionActive,
            nodeCount: definitions.size,
            problem: null,
            skipped: subscriptionActive === null && keyNeeded ? ['the subscription and credits check: only running a workflow shows them'] : [],
            message: `Connected to ${api.profile.baseUrl}: ${definitions.size} node types available${keyNeeded ? ', key accepted' : ''}.`,
          };
        } catch (error) {
          if (!(error instanceof ServiceError)) throw error;
          switch (error.kind) {
            case 'unauthorized':
              return { reachable: true, keyAccepted: false, subscriptionActive, nodeCount: null, problem: 'key_rejected', message: error.message };
            case 'subscription_inactive':
              return {
                reachable: true,
                keyAccepted: true,
                subscriptionActive: false,
                nodeCount: null,
                problem: 'subscription_inactive',
                message: error.message,
              };
            case 'network':
              return { reachable: false, keyAccepted: null, subscriptionActive, nodeCount: null, problem: 'unreachable', message: error.message };
            default:
              return { reachable: true, keyAccepted: null, subscriptionActive, nodeCount: null, problem: problemOfServiceError(error), message: error.message };
          }
        }
      });
    },

    'nodes.definitions': async (input) => {
      const profile = profiles.target(input?.profileId);
      const definitions = await active.withApi(profile, async (api, active) => {
        // A server without node definitions (Comfy API v2 only) says so rather than failing.
        if (!(await api.discover()).nodeDefinitions) return null;
        return active ? active.nodeDefinitions(input?.refresh === true) : api.getNodeDefinitions();
      });
      return definitions ? { profileId: profile.id, classes: nodeDefinitionsView(definitions) } : { profileId: profile.id, classes: {}, none: true };
    },
  };
}

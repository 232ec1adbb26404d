// What stops the active server from running workflows, learnt from the answers of calls made on
// it and from "Test connection". Kept per profile (a problem belongs to one server) until an
// answer shows it is gone, so the indicator can name it instead of a bare "connected".
import type { ConnectionProblem, ConnectionTest, Envelope } from '@shared/ipc/contract';
import { ServiceError } from '@main/service/errors';
import type { ServiceApi } from '@main/service/ports';

/** The calls whose answers say something about the active server. */
const ACTIVE_SERVER_CALLS = new Set(['run.submit', 'nodes.definitions', 'upload.image', 'upload.mask', 'connection.test']);

/**
 * The problem a refusal by the server shows, named by its ServiceError kind or by the IPC error
 * code it became (the same words for these three, errors.ts); null when it says nothing about the
 * server's state.
 */
function problemOfRefusal(kindOrCode: string): ConnectionProblem | null {
  switch (kindOrCode) {
    case 'unauthorized':
      return 'key_rejected';
    case 'insufficient_credits':
      return 'no_credits';
    case 'subscription_inactive':
      return 'subscription_inactive';
    default:
      return null;
  }
}

export class ConnectionProblems {
  readonly #byProfile = new Map<string, ConnectionProblem>();

  get(profileId: string | null): ConnectionProblem | null {
    return profileId ? (this.#byProfile.get(profileId) ?? null) : null;
  }

  set(profileId: string, problem: ConnectionProblem | null): void {
    if (problem) this.#byProfile.set(profileId, problem);
    else this.#byProfile.delete(profileId);
  }

  /**
   * Learns from one call's answer on `profileId` (the profile the call targeted). Returns true when
   * what is known changed (the indicator must be told).
   */
  note(name: string, profileId: string | null, answer: Envelope<unknown>): boolean {
    if (!profileId || !ACTIVE_SERVER_CALLS.has(name)) return false;
    const before = this.get(profileId);
    let after = before;
    if (name === 'connection.test') {
      if (answer.ok) after = (answer.value as ConnectionTest).problem ?? null;
    } else if (!answer.ok) {
      const found = problemOfRefusal(answer.error.code);
      // Refused for want of a key is still "no key", not a rejected one.
      after = found === 'key_rejected' && before === 'no_key' ? before : (found ?? before);
    } else if (name === 'run.submit') {
      // An accepted submit proves key, subscription and credits; reachability too.
      after = null;
    } else if (before === 'unreachable' || before === 'not_workflow_server') {
      after = null;
    }
    this.set(profileId, after);
    return after !== before;
  }
}

/** The problem a failed request to the server shows. */
export function problemOfServiceError(error: ServiceError): ConnectionProblem | null {
  switch (error.kind) {
    case 'network':
      return 'unreachable';
    case 'protocol':
    case 'not_found':
      return 'not_workflow_server';
    default:
      return problemOfRefusal(error.kind);
  }
}

/**
 * "Test connection" without a key: whether the server answers and is a workflow server (its node
 * list), and which checks only a key allows. A server that wants a key for the node list too
 * (401) still shows it is there and speaks the protocol.
 */
export async function testWithoutKey(api: ServiceApi): Promise<ConnectionTest> {
  const skipped = ['the key check: no API key is set', 'the subscription and credits check: they need a key'];
  try {
    const definitions = await api.getNodeDefinitions();
    return {
      reachable: true,
      keyAccepted: null,
      subscriptionActive: null,
      nodeCount: definitions.size,
      problem: 'no_key',
      skipped,
      message: `${api.profile.baseUrl} answers as a workflow server (${definitions.size} node types). No API key is set: paste your key to check it.`,
    };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const problem = problemOfServiceError(error);
    if (problem === 'unreachable' || problem === 'not_workflow_server') {
      return { reachable: problem !== 'unreachable', keyAccepted: null, subscriptionActive: null, nodeCount: null, problem, skipped, message: error.message };
    }
    return {
      reachable: true,
      keyAccepted: null,
      subscriptionActive: null,
      nodeCount: null,
      problem: 'no_key',
      skipped,
      message: `${api.profile.baseUrl} answers, and asks for a key. No API key is set: paste your key to check it.`,
    };
  }
}

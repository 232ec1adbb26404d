// Which contract a server speaks, found out without side effects: a GET of a job id that cannot
// exist. A v2 server answers in its error envelope (404 not_found, or 401 when it wants a key a
// client did not send); anything else (a v1 cloud's {code, message}, a local server's text page)
// is v1. Then whether v1 is there beside v2 (GET /api/features answers): the cloud, yes; a
// serverless deployment or a proxy, no. Nothing is created, queued or uploaded by asking.
import type { HttpTransport } from '../http';
import { jsonOf } from '../http';
import { envelopeSchema } from './wire';

/** A job id no server hands out (the nil UUID's version-4 form): the probe reads, never creates. */
export const PROBE_JOB_ID = '00000000-0000-4000-8000-000000000000';

export type ContractDiscovery =
  | { contract: 'v1' }
  | {
      contract: 'v2';
      /** The server answered 401 without a key: it needs one (ask the user only now). */
      needsKey: boolean;
      /** The v1 API answers on the same address (node definitions, queue, history). */
      v1Beside: boolean;
    };

export async function discoverContract(http: HttpTransport, signal?: AbortSignal): Promise<ContractDiscovery> {
  const sig = signal ? { signal } : {};
  const probe = await http.request({ method: 'GET', path: `/api/v2/jobs/${PROBE_JOB_ID}`, what: 'the contract check', ...sig });
  const envelope = envelopeSchema.safeParse(jsonOf(probe));
  const speaksV2 = envelope.success && (probe.status === 404 || probe.status === 401 || probe.status === 403);
  if (!speaksV2) return { contract: 'v1' };
  const features = await http.request({ method: 'GET', path: '/api/features', what: 'the server features', ...sig }).catch(() => null);
  // v1 answers, or refuses a bearer token in its own way (the cloud's v1 wants X-API-Key): it is
  // there. A v2-only surface answers in the v2 envelope, or not at all.
  const v1Refusal = features !== null && features.status === 401 && !envelopeSchema.safeParse(jsonOf(features)).success;
  const v1Beside = features !== null && ((features.status >= 200 && features.status <= 299) || v1Refusal);
  return { contract: 'v2', needsKey: probe.status === 401, v1Beside };
}

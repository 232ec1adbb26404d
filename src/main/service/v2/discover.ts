// Which contract a server speaks, found out without side effects: a GET of a job id that cannot
// exist. A v2 server answers in its error envelope (404 not_found, or 401 when it wants a key a
// client did not send); anything else (a v1 cloud's {code, message}, a local server's text page)
// is v1. Then whether v1 is there beside v2 (GET /api/features answers): the cloud, yes; a
// serverless deployment or a proxy, no. Nothing is created, queued or uploaded by asking.
// When v2 is expected (the profile says so, or the last run found it at this address) both
// questions are asked at once, saving a round trip; the answers are read exactly as when they are
// asked in turn, so a server that changed is still found out (a v1 server's features answer is
// then left unread: it was a GET). Unexpected, the features are asked only of a v2 server, so a
// v1 server is asked for them once, by its own client.
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

interface DiscoveryOptions {
  signal?: AbortSignal | undefined;
  /** v2 is likely (a v2 profile, or the last run's finding): ask for the features at the same time. */
  expectV2?: boolean | undefined;
}

export async function discoverContract(http: HttpTransport, options: DiscoveryOptions = {}): Promise<ContractDiscovery> {
  const sig = options.signal ? { signal: options.signal } : {};
  const askFeatures = () => http.request({ method: 'GET', path: '/api/features', what: 'the server features', ...sig }).catch(() => null);
  const early = options.expectV2 ? askFeatures() : null;
  const probe = await http
    .request({ method: 'GET', path: `/api/v2/jobs/${PROBE_JOB_ID}`, what: 'the contract check', ...sig })
    .catch(async (error: unknown) => {
      await early;
      throw error;
    });
  const envelope = envelopeSchema.safeParse(jsonOf(probe));
  const speaksV2 = envelope.success && (probe.status === 404 || probe.status === 401 || probe.status === 403);
  if (!speaksV2) {
    await early;
    return { contract: 'v1' };
  }
  const features = await (early ?? askFeatures());
  // v1 answers, or refuses a bearer token in its own way (the cloud's v1 wants X-API-Key): it is
  // there. A v2-only surface answers in the v2 envelope, or not at all.
  const v1Refusal = features !== null && features.status === 401 && !envelopeSchema.safeParse(jsonOf(features)).success;
  const v1Beside = features !== null && ((features.status >= 200 && features.status <= 299) || v1Refusal);
  return { contract: 'v2', needsKey: probe.status === 401, v1Beside };
}

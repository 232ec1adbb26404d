// One v2 send and what its answer means (the policy: docs/v2-submit-policy.md):
// - every send carries the Idempotency-Key the caller journaled with its intent, and the job's
//   metadata names the key, so a job whose answer was lost can be found again by listing;
// - it is sent once: a send whose answer never came (network failure, 5xx, a silent deadline) is
//   sent again under the same key by jobs/submit-v2.ts, the one retry layer (the transport does
//   not retry it as well). A 201 then means the first never made a job; 422
//   idempotency_key_reuse means it may have, so the job is looked for (GET /api/v2/jobs, where the
//   surface lists them) and, when it cannot be found, the caller is told plainly that a run may
//   exist (SendMayHaveRunError);
// - 429 queue_full / deployment_not_ready wait for Retry-After and send again with the same key
//   (the server released it), telling the caller "deployment starting..." meanwhile.
import { ServiceError } from '../errors';
import { jsonOf, type HttpTransport } from '../http';
import type { JsonObject } from '@shared/json';
import { IdempotencyKeyReuseError, RetryLaterError, v2ErrorFor } from './errors';
import { jobListSchema, jobSchema, type V2Job } from './wire';

/** How long a submit waits in total for a deployment that is starting or a full queue. */
const MAX_RETRY_LATER_MS = 10 * 60 * 1000;

export const KEY_METADATA_PREFIX = 'flowdeck-idempotency-key:';

/** A send whose answer never came may have created a job that cannot be found from here. */
export class SendMayHaveRunError extends ServiceError {
  constructor(
    readonly idempotencyKey: string,
    origin: string,
  ) {
    super(
      'protocol',
      `An earlier send of this workflow to ${origin} may have created a job: its answer never arrived, and the server refuses a second send under the same Idempotency-Key (it never runs one twice). ` +
        "This server does not let Flowdeck look the job up. Check the server's job list before running the workflow again, so that it does not run twice.",
      { status: 422, retryable: false },
    );
    this.name = 'SendMayHaveRunError';
  }
}

export interface V2SubmitDeps {
  http: HttpTransport;
  secret: () => Promise<string | null>;
  log: (line: string) => void;
  /** Told while a submit waits for Retry-After ("deployment starting..."). */
  onWait?: ((message: string) => void) | undefined;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface V2SubmitRequest {
  workflow: JsonObject;
  idempotencyKey: string;
  extraData?: JsonObject | undefined;
  signal?: AbortSignal | undefined;
}

/** The job made by the earlier send under `key`, when the surface lists jobs; null when not found or not listable. */
export async function findJobByKey(deps: Pick<V2SubmitDeps, 'http'>, key: string, signal?: AbortSignal): Promise<V2Job | null> {
  const answer = await deps.http.request({ method: 'GET', path: '/api/v2/jobs', query: { limit: '100' }, what: 'the job list', ...(signal ? { signal } : {}) });
  if (answer.status < 200 || answer.status > 299) return null;
  const list = jobListSchema.safeParse(jsonOf(answer));
  if (!list.success) return null;
  return list.data.jobs.find((job) => job.metadata === KEY_METADATA_PREFIX + key) ?? null;
}

export async function submitV2(deps: V2SubmitDeps, request: V2SubmitRequest): Promise<V2Job> {
  const { http } = deps;
  const key = request.idempotencyKey;
  const body: JsonObject = { workflow: request.workflow, metadata: KEY_METADATA_PREFIX + key };
  if (request.extraData && Object.keys(request.extraData).length > 0) body.extra_data = request.extraData;
  const what = 'the workflow submission';
  const started = Date.now();
  for (;;) {
    // Sent once (not idempotent to the transport): a send without an answer is jobs/submit-v2.ts's
    // to send again, under the same key; a second retry layer here would multiply the sends.
    const answer = await http.request({
      method: 'POST',
      path: '/api/v2/jobs',
      json: body,
      headers: { 'Idempotency-Key': key },
      idempotent: false,
      what,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    if (answer.status >= 200 && answer.status <= 299) {
      const job = jobSchema.safeParse(jsonOf(answer));
      if (!job.success)
        throw new ServiceError('protocol', 'The server accepted the workflow but its answer is not a job this client can read.', {
          status: answer.status,
          retryable: false,
        });
      return job.data;
    }
    const failure = v2ErrorFor(answer, what, await deps.secret());
    if (failure instanceof IdempotencyKeyReuseError) {
      const found = await findJobByKey(deps, key, request.signal);
      if (found) {
        deps.log(`submit ${key}: an earlier send had created job ${found.id}; following it`);
        return found;
      }
      throw new SendMayHaveRunError(key, http.url('/').origin);
    }
    if (failure instanceof RetryLaterError && Date.now() - started + failure.retryAfterMs <= MAX_RETRY_LATER_MS) {
      deps.onWait?.(
        failure.code === 'deployment_not_ready'
          ? 'deployment starting…'
          : failure.code === 'queue_full'
            ? "the server's queue is full; waiting to send…"
            : 'the server asks to slow down; waiting…',
      );
      await deps.sleep(failure.retryAfterMs, request.signal);
      continue;
    }
    throw failure;
  }
}

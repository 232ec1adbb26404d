// The demo's Comfy API v2 surface: how it is mounted, its fault switches and its counters.
// 'beside': the cloud flavour serves /api/v2 next to its v1 API (the same account keys, sent as
// `Authorization: Bearer`). 'only': a v2-only deployment (serverless, or the self-hosted proxy):
// /api/v2 and nothing else, no node definitions, queue, interrupt or socket; a bearer token is
// required only when one is configured.
export type V2Mode = 'beside' | 'only';

export interface V2Faults {
  /** The next `count` submits answer 429 deployment_not_ready with Retry-After `seconds` (the key is released). */
  notReady(count: number, seconds?: number): void;
  /** The next `count` submits answer 429 queue_full with Retry-After `seconds`. */
  queueFull(count: number, seconds?: number): void;
  /** The next `count` submits create their job, then close the connection without an answer (the key stays claimed). */
  loseSubmitAnswers(count: number): void;
  /** The next `count` submits close the connection before anything is created (the key stays unclaimed). */
  dropSubmitsBeforeCreating(count: number): void;
  /** Submits create their job, then wait `ms` before answering (a client killed meanwhile never reads it). */
  holdSubmitAnswers(ms: number): void;
  /**
   * Cancels are answered 200 with the job as it is and change nothing, as the proxy in front of a
   * server too old to cancel one job does (proxy-observed.md).
   */
  ignoreCancels(ignore: boolean): void;
  /** Event streams answer 429 too_many_streams (true) or 501 not_implemented ('501'), or work (false). */
  refuseStreams(mode: false | true | '501'): void;
  reset(): void;
}

export interface V2Stats {
  /** POST /api/v2/jobs requests, accepted or not. */
  submitRequests: number;
  /** Jobs created per Idempotency-Key (a test counts double submits with it). */
  jobsByKey: Map<string, number>;
  /** Uploads that carried bytes (POST /api/v2/assets), and the bytes they carried. */
  assetUploads: number;
  assetUploadBytes: number;
  /** Assets minted over bytes the server had (from-hash), and HEAD by-hash checks. */
  fromHash: number;
  byHashChecks: number;
  /** Event streams opened. */
  streamsOpened: number;
}

export function createV2Stats(): V2Stats {
  return { submitRequests: 0, jobsByKey: new Map(), assetUploads: 0, assetUploadBytes: 0, fromHash: 0, byHashChecks: 0, streamsOpened: 0 };
}

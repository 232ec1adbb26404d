// The demo service's public types: how it is configured, and the switches and counters tests use.
import type { DemoNode } from './node-api';

export type DemoFlavour = 'cloud' | 'local';
export type DemoStatusVocabulary = 'spec' | 'success_error' | 'raw';
export type AccountState = 'active' | 'no_credits' | 'inactive';

export interface DemoServiceOptions {
  flavour: DemoFlavour;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Cloud: generated (random, url-safe) when absent. Local: ignored. */
  apiKey?: string;
  /** Words of /api/job/{id}/status (cloud): the specification's, success/error, or the documented raw states. */
  statusVocabulary?: DemoStatusVocabulary;
  /** Where input/output/temp files live; a fresh temp dir by default (removed on stop). */
  dataDir?: string;
  /** Lifetime of signed storage URLs; default 6 hours. */
  signedUrlTtlMs?: number;
  /** Multiplies node delays; default 1. */
  timeScale?: number;
  /** Node library; default createNodeLibrary() from ./nodes. */
  nodes?: Map<string, DemoNode>;
  /**
   * Reuse node results of the previous job when a node and its inputs are unchanged, as the real
   * local server does (the second identical submit is answered from cache). Default: local on, cloud off.
   */
  cache?: boolean;
  /** Serve the template gallery (routes-templates.ts); false: a server without templates. Default true. */
  templates?: boolean;
  /** Largest accepted upload in bytes. Default: local 100 MiB (its max_upload_size), cloud 50 MB. */
  maxUploadBytes?: number;
  /**
   * Comfy API v2 (v2/types.ts): 'beside' serves /api/v2 next to the cloud flavour's v1 API (the
   * account keys as bearer tokens); 'only' makes a v2-only deployment of the local flavour (no
   * node definitions, queue, interrupt or socket). Absent: v1 only.
   */
  v2?: 'beside' | 'only';
  /** v2-only: the bearer token the deployment requires; absent: none (a proxy without a token). */
  v2Token?: string;
  /**
   * v2-only: answer as the real self-hosted proxy was seen to (proxy-observed.md): null start and
   * end times, a zero placeholder progress when polled, outputs only once terminal, output ids
   * that are signed tokens rather than UUIDs, no `running` event on the stream.
   */
  v2ProxyQuirks?: boolean;
}

export interface DemoFaults {
  /** Close every socket once, when the next job reaches its Nth progress step (default 1). */
  dropSocketsMidJob(atStep?: number): void;
  /** Keep sockets open but send nothing for `ms` (frames meanwhile are discarded, as if lost). */
  goSilent(ms: number): void;
  /** Delay every HTTP answer by `ms` (0 to stop). */
  setResponseDelay(ms: number): void;
  /** Answer the next `count` HTTP requests (optionally only those whose path includes `pathIncludes`) with 500. */
  fail500(count: number, pathIncludes?: string): void;
  /** Send malformed binary frames (short, overrunning length, unknown type) during the next job. */
  sendMalformedFrames(enabled: boolean): void;
  /** Make signed URLs expire immediately (the next storage request answers 403 expired). */
  expireSignedUrls(): void;
  reset(): void;
}

export interface DemoStats {
  /** Accepted submissions per prompt_id (a test counts double submits with it). */
  submissions: Map<string, number>;
  /** POST /prompt requests, accepted or not. */
  promptRequests: number;
  /** Requests that reached the storage listener. */
  storageRequests: number;
  /** Storage requests that carried an API key (header or URL); must stay 0. They are answered 403. */
  storageRequestsWithKey: number;
  /** GET /view requests. */
  viewRequests: number;
  /** Uploads (image or mask) that were accepted. */
  uploads: number;
  /** GET /features requests (a client should ask once per connection, not once per use). */
  featuresRequests: number;
  /** GET /object_info requests for the whole list (a check of one input should ask for its class alone). */
  objectInfoListRequests: number;
  /** Every key value the main listener saw in X-API-Key or token (tests check nothing else leaks). */
  keysSeen: Set<string>;
}

export function createStats(): DemoStats {
  return {
    submissions: new Map(),
    promptRequests: 0,
    storageRequests: 0,
    storageRequestsWithKey: 0,
    viewRequests: 0,
    uploads: 0,
    featuresRequests: 0,
    objectInfoListRequests: 0,
    keysSeen: new Set(),
  };
}

// What a server can do and how it does it, so that code outside service/ asks a question ("does
// interrupt stop every running job?") instead of testing the server kind. Built from the profile's
// kind, then refined by discovery (GET /api/features, which older servers answer with 404).
// A future server flavour (e.g. the cloud's versioned /api/v2 with per-job cancel) is another
// capability set, not another round of kind checks.
import { z } from 'zod';
import { CLOUD_UPLOAD_LIMITS, LOCAL_UPLOAD_LIMITS, type UploadLimits } from '@main/images/upload-limits';
import type { ServerKind, UploadResult } from './types';

/** What GET /api/features says (fields a server leaves out are null). */
export interface ServerFeatures {
  supportsPreviewMetadata: boolean | null;
  maxUploadSize: number | null;
  maxConcurrentJobs: number | null;
}

/** Comfy API v2 takes up to about 100 MB per upload request (openapi-v2.yaml); no pixel limits. */
export const V2_UPLOAD_LIMITS: UploadLimits = { maxBytes: 100 * 1000 * 1000, maxEdgePx: null, maxPixels: null };

/**
 * The contract jobs and assets go through: the seed's API (v1: /api/prompt, /ws, /api/view) or
 * Comfy API v2 (/api/v2: assets by hash, jobs with an Idempotency-Key, per-job cancel, an event
 * stream per job). Found out by discovery without side effects (service/v2/discover.ts).
 */
export type ServiceContract = 'v1' | 'v2';

export interface ServerCapabilities {
  /** Which contract runs jobs here (v2: the submit carries an Idempotency-Key, see jobs/submit-v2.ts). */
  readonly contract: ServiceContract;
  /** Whether the server has the v1 API beside v2 (node definitions, queue, history); v2-only deployments do not. */
  readonly nodeDefinitions: boolean;
  /**
   * Whether the server has a queue to read and clear (v1's /api/queue). A server that speaks only
   * v2 (a serverless deployment, a bare proxy) has none: its jobs are the ones a client sent it.
   */
  readonly serverQueue: boolean;
  /**
   * Whether the server takes a mask by itself over an image it has (v1's /api/upload/mask). Comfy
   * API v2 has none: the mask is composed into the image here and only the result is uploaded.
   */
  readonly maskUpload: boolean;
  /**
   * How an uploaded file is named in a workflow input: the cloud stores uploads flat
   * ('name'); a local server keeps the subfolder, written in front ('subfolder/name').
   */
  readonly uploadReference: 'name' | 'subfolder/name';
  /**
   * Where a job's status comes from: the cloud's /api/job/{id}/status (404 = the server does
   * not know it), or derived from the local server's queue and history (an unclassified reading
   * may mean the server restarted and forgot its queue: check the queue and history directly).
   */
  readonly jobStatus: 'status-endpoint' | 'queue-and-history';
  /** Past and current jobs: the cloud's GET /api/jobs, or the local /api/history plus /api/queue. */
  readonly jobList: 'jobs-endpoint' | 'history';
  /**
   * What POST /api/interrupt stops: every running job of the account (cloud), or the one prompt
   * named in its body (local; older local servers stop whatever runs).
   */
  readonly interrupt: 'all-running' | 'one-prompt';
  /**
   * Whether the client picks the prompt_id itself (local), so the intent can be journaled before
   * the submit and a lost answer reconciled; the cloud assigns its own.
   */
  readonly clientPromptId: boolean;
  /**
   * Who receives a job's socket events: every socket of the account (cloud), or only the socket
   * whose client id submitted it (local), so a job another client sent must be polled.
   */
  readonly jobEvents: 'account' | 'submitting-client';
  /** Whether requests need an API key. */
  readonly needsApiKey: boolean;
  /**
   * Whether the server writes extra_data.extra_pnginfo into its output images (local: the editor
   * graph sent there makes the outputs open again in the server's own editor; the cloud does not).
   */
  readonly embedsEditorGraph: boolean;
  readonly uploadLimits: UploadLimits;
  /** Whether live previews carry metadata (binary frame type 4) once the socket asks for it. */
  readonly previewMetadata: boolean;
  /** Jobs the account may run at once, when the server says so. */
  readonly maxConcurrentJobs: number | null;
  /** Whether /api/features answered (false: defaults of the kind). */
  readonly discovered: boolean;
}

/** The capabilities of a server of `kind`, refined by what its /api/features said (null: not asked, or 404). */
export function capabilitiesFor(kind: ServerKind, features: ServerFeatures | null = null): ServerCapabilities {
  const cloud = kind === 'cloud';
  const limits = cloud ? CLOUD_UPLOAD_LIMITS : LOCAL_UPLOAD_LIMITS;
  return {
    contract: 'v1',
    nodeDefinitions: true,
    serverQueue: true,
    maskUpload: true,
    uploadReference: cloud ? 'name' : 'subfolder/name',
    jobStatus: cloud ? 'status-endpoint' : 'queue-and-history',
    jobList: cloud ? 'jobs-endpoint' : 'history',
    interrupt: cloud ? 'all-running' : 'one-prompt',
    clientPromptId: !cloud,
    jobEvents: cloud ? 'account' : 'submitting-client',
    needsApiKey: cloud,
    embedsEditorGraph: !cloud,
    uploadLimits: features?.maxUploadSize ? { ...limits, maxBytes: features.maxUploadSize } : limits,
    // Both kinds send type-4 previews to a socket that announces supports_preview_metadata; a
    // server that says otherwise is believed.
    previewMetadata: features?.supportsPreviewMetadata ?? true,
    maxConcurrentJobs: features?.maxConcurrentJobs ?? null,
    discovered: features !== null,
  };
}

/** The value a workflow input takes for an uploaded file. */
export function uploadedInputValue(capabilities: ServerCapabilities, result: UploadResult): string {
  return capabilities.uploadReference === 'subfolder/name' && result.subfolder ? `${result.subfolder}/${result.name}` : result.name;
}

const featuresSchema = z.object({
  supports_preview_metadata: z.boolean().optional(),
  max_upload_size: z.number().finite().positive().optional(),
  max_concurrent_jobs: z.number().int().positive().optional(),
});

/** GET /api/features's answer (untrusted); null when it is not one. */
export function parseFeatures(body: unknown): ServerFeatures | null {
  const parsed = featuresSchema.safeParse(body);
  if (!parsed.success) return null;
  return {
    supportsPreviewMetadata: parsed.data.supports_preview_metadata ?? null,
    maxUploadSize: parsed.data.max_upload_size ?? null,
    maxConcurrentJobs: parsed.data.max_concurrent_jobs ?? null,
  };
}

/**
 * A server that speaks Comfy API v2: jobs by status endpoint, one job cancelled at a time, events
 * per job for whoever follows it, no editor graph embedded. `v1Beside`: node definitions, queue
 * and history still come from its v1 API (the cloud); `needsApiKey`: known to want one (the cloud,
 * or a 401 seen), never assumed for a self-hosted proxy.
 */
export function v2CapabilitiesFor(options: { v1Beside: boolean; needsApiKey: boolean }): ServerCapabilities {
  return {
    contract: 'v2',
    nodeDefinitions: options.v1Beside,
    serverQueue: options.v1Beside,
    maskUpload: false,
    uploadReference: 'name',
    jobStatus: 'status-endpoint',
    jobList: 'jobs-endpoint',
    interrupt: 'one-prompt',
    clientPromptId: false,
    jobEvents: 'account',
    needsApiKey: options.needsApiKey,
    embedsEditorGraph: false,
    uploadLimits: V2_UPLOAD_LIMITS,
    previewMetadata: true,
    maxConcurrentJobs: null,
    discovered: true,
  };
}

// Comfy API v2's wire types, as far as this client uses them, validated where they enter
// (openapi-v2.yaml; proxy-observed.md for what the self-hosted proxy really sends: null start and
// end times, a zero placeholder progress, output sizes of 0, output ids that are not UUIDs).
// Hand-written rather than the vendor's generated SDK (not a dependency here): only the fields
// read are required, and everything else passes through untouched.
import { z } from 'zod';
import type { JsonObject } from '@shared/json';

export const TERMINAL_STATUSES: readonly string[] = ['succeeded', 'canceled', 'failed', 'expired'];

const isoOrNull = z.string().nullish();

export const assetSchema = z.object({
  id: z.string().min(1),
  hash: z.string().nullish(),
  size_bytes: z.number().nonnegative().nullish(),
  content_type: z.string().nullish(),
  file_path: z.string().nullish(),
  url: z.string().nullish(),
  url_expires_at: isoOrNull,
  expires_at: isoOrNull,
  created_new: z.boolean().nullish(),
});
export type V2Asset = z.infer<typeof assetSchema>;

export const outputSchema = z.object({
  id: z.string().min(1),
  node_id: z.string().nullish(),
  name: z.string().nullish(),
  type: z.string().nullish(),
  content_type: z.string().nullish(),
  size_bytes: z.number().nullish(),
  url: z.string().nullish(),
  url_expires_at: isoOrNull,
});
export type V2Output = z.infer<typeof outputSchema>;

export const progressSchema = z.object({
  value: z.number().nullish(),
  nodes_done: z.number().nullish(),
  nodes_total: z.number().nullish(),
  current_node: z.string().nullish(),
  current_node_class: z.string().nullish(),
  step: z.number().nullish(),
  steps: z.number().nullish(),
  message: z.string().nullish(),
});

export const jobErrorSchema = z.object({
  code: z.string().nullish(),
  message: z.string().nullish(),
  node_id: z.string().nullish(),
  class_type: z.string().nullish(),
  traceback: z.string().nullish(),
});

export const jobSchema = z.object({
  id: z.string().min(1),
  status: z.string().min(1),
  created_at: isoOrNull,
  started_at: isoOrNull,
  completed_at: isoOrNull,
  expires_at: isoOrNull,
  queue_position: z.number().nullish(),
  progress: progressSchema.nullish(),
  outputs: z.array(outputSchema).nullish(),
  error: jobErrorSchema.nullish(),
  metadata: z.string().nullish(),
  urls: z.object({ self: z.string().nullish(), events: z.string().nullish(), cancel: z.string().nullish() }).nullish(),
});
export type V2Job = z.infer<typeof jobSchema>;

export const jobListSchema = z.object({ jobs: z.array(jobSchema) });

export const workflowAnswerSchema = z.object({ format: z.string(), workflow: z.record(z.string(), z.unknown()) });

export const envelopeSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string().nullish(),
    details: z.record(z.string(), z.unknown()).nullish(),
  }),
});

export const statusEventSchema = z.object({ status: z.string().min(1), queue_position: z.number().nullish() });
export const previewEventSchema = z.object({ node_id: z.string().nullish(), content_type: z.string().nullish(), data_base64: z.string() });

/** The reference a workflow input takes for an asset, where a file name would go. */
export function assetReference(asset: { id: string; hash?: string | null | undefined; file_path?: string | null | undefined }): JsonObject {
  const info: JsonObject = { id: asset.id };
  if (asset.hash) info.hash = asset.hash;
  if (asset.file_path) info.file_path = asset.file_path;
  return { __type: 'core/ASSET', info };
}

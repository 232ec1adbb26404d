// Rows of library_items to LibraryItem and back. The database is a file on disk, so rows are
// validated like any untrusted input; a row that does not fit is skipped, never trusted.
import { z } from 'zod';
import { isJsonObject, parseJsonExact, type JsonValue } from '@shared/json';
import { absolutePath } from './layout';
import type { LibraryItem } from './types';

const nullableInt = z.number().int().nullable();

export const itemRowSchema = z.object({
  id: z.number().int(),
  prompt_id: z.string(),
  profile_id: z.string().nullable(),
  server_kind: z.enum(['cloud', 'local']),
  base_url: z.string(),
  workflow_name: z.string().nullable(),
  node_id: z.string(),
  node_class: z.string().nullable(),
  output_key: z.string(),
  file_name: z.string(),
  file_subfolder: z.string(),
  file_type: z.string(),
  media_kind: z.enum(['image', 'video', 'audio', 'model', 'other']),
  mime: z.string().nullable(),
  size: nullableInt,
  width: nullableInt,
  height: nullableInt,
  duration_ms: nullableInt,
  sha256: z.string().nullable(),
  path: z.string().nullable(),
  root: z.string().nullable(),
  inputs: z.string(),
  prompt_text: z.string(),
  created_at: z.number(),
  recorded_at: z.number(),
  completed_at: z.number().nullable(),
  status: z.enum(['pending', 'downloading', 'done', 'failed']),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  retry_at: z.number().nullable(),
  source_file: z.string().nullable(),
});
export type ItemRow = z.infer<typeof itemRowSchema>;

/** The columns read for an item (never the stored workflow: it can be large; see workflowOf). */
export const ITEM_COLUMNS = Object.keys(itemRowSchema.shape).join(', ');

function parseInputs(text: string): Record<string, Record<string, JsonValue>> {
  try {
    const value = parseJsonExact(text);
    if (!isJsonObject(value)) return {};
    const out: Record<string, Record<string, JsonValue>> = {};
    for (const [node, inputs] of Object.entries(value)) if (isJsonObject(inputs)) out[node] = inputs;
    return out;
  } catch {
    return {};
  }
}

export function parseItemRow(raw: Record<string, unknown>): ItemRow | null {
  const parsed = itemRowSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** The absolute path of a row's file: its own library folder, else the current one. */
export function rowFilePath(row: ItemRow, currentRoot: string): string | null {
  return row.path === null ? null : absolutePath(row.root ?? currentRoot, row.path);
}

export function toItem(row: ItemRow, root: string): LibraryItem {
  return {
    id: row.id,
    promptId: row.prompt_id,
    server: { profileId: row.profile_id, kind: row.server_kind, baseUrl: row.base_url },
    workflowName: row.workflow_name,
    nodeId: row.node_id,
    nodeClass: row.node_class,
    outputKey: row.output_key,
    file: { filename: row.file_name, subfolder: row.file_subfolder, type: row.file_type },
    mediaKind: row.media_kind,
    mime: row.mime,
    size: row.size,
    width: row.width,
    height: row.height,
    durationMs: row.duration_ms,
    sha256: row.sha256,
    path: row.status === 'done' ? rowFilePath(row, root) : null,
    createdAt: row.created_at,
    recordedAt: row.recorded_at,
    completedAt: row.completed_at,
    inputs: parseInputs(row.inputs),
    promptText: row.prompt_text,
    status: row.status,
    attempts: row.attempts,
    error: row.last_error,
    retryAt: row.retry_at,
    sourceFile: row.source_file,
  };
}

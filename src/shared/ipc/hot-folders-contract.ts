// The hot folders' part of the renderer <-> main contract: folder and file views, the calls and
// the events. Merged into contract.ts's `calls` and `events`. Hot folders run on the active
// server profile's connection.
import { z } from 'zod';

const folderId = z.string().min(1).max(200);
const absolutePath = z.string().min(1).max(4096);

export const runOnSchema = z.enum(['active', 'pool']);
export type RunOn = z.infer<typeof runOnSchema>;

export const HOT_FILE_STATES = ['settling', 'waiting', 'uploading', 'submitting', 'running', 'done', 'failed', 'duplicate'] as const;
export const hotFileStateSchema = z.enum(HOT_FILE_STATES);

export const hotFolderCountersSchema = z.object({
  waiting: z.number().int(),
  running: z.number().int(),
  done: z.number().int(),
  failed: z.number().int(),
  duplicates: z.number().int(),
});
export type HotFolderCountersView = z.infer<typeof hotFolderCountersSchema>;

export const hotFolderStatusSchema = z.object({
  counters: hotFolderCountersSchema,
  paused: z.boolean(),
  /** Why: the user paused it, or the account needs attention (key, credits, subscription). */
  pauseKind: z.enum(['user', 'unauthorized', 'insufficient_credits', 'subscription_inactive', 'servers_down']).nullable(),
  /** What the user must do, in plain words. */
  pauseReason: z.string().nullable(),
  scanned: z.boolean(),
  idle: z.boolean(),
});

export const hotFolderSchema = z.object({
  id: z.string(),
  name: z.string(),
  inputDir: z.string(),
  outputDir: z.string(),
  recursive: z.boolean(),
  patterns: z.array(z.string()),
  /** The workflow as exact JSON text. */
  workflowJson: z.string(),
  workflowName: z.string().nullable(),
  /** NODE.INPUT that receives each file. */
  bind: z.string(),
  maskRule: z.string().nullable(),
  outputName: z.string(),
  concurrency: z.number().int(),
  processed: z.enum(['leave', 'move']),
  enabled: z.boolean(),
  /** Where its files run: the active server, or the pool (Servers). */
  runOn: runOnSchema,
  status: hotFolderStatusSchema,
});
export type HotFolderView = z.infer<typeof hotFolderSchema>;

export const hotFileSchema = z.object({
  folderId: z.string(),
  path: z.string(),
  relPath: z.string(),
  state: hotFileStateSchema,
  promptId: z.string().nullable(),
  attempts: z.number().int(),
  /** Why it failed, or why it waits for a retry. */
  reason: z.string().nullable(),
  retryAt: z.number().nullable(),
  /** Share of the job done (0..1) while it runs, when known. */
  progress: z.number().min(0).max(1).nullable(),
  /** Paths of the outputs written for it. */
  outputs: z.array(z.string()),
  duplicateOf: z.string().nullable(),
  /** The server its job went to (a pool spreads files over several). */
  server: z.string().nullable().optional(),
  /** That server's profile name, when it is one of the app's profiles. */
  serverName: z.string().nullable().optional(),
  updatedAt: z.number(),
});
export type HotFileView = z.infer<typeof hotFileSchema>;

export const hotFolderSaveSchema = z
  .object({
    /** Present to edit a folder; absent to add one. */
    id: folderId.optional(),
    name: z.string().max(200).optional(),
    inputDir: absolutePath,
    outputDir: absolutePath,
    workflowJson: z
      .string()
      .min(2)
      .max(50 * 1024 * 1024),
    workflowName: z.string().max(255).nullable().optional(),
    bind: z.string().min(3).max(400),
    recursive: z.boolean().optional(),
    patterns: z.array(z.string().min(1).max(100)).min(1).max(50).optional(),
    /** With {stem}; null: no masks. */
    maskRule: z.string().min(1).max(200).nullable().optional(),
    outputName: z.string().min(1).max(200).optional(),
    concurrency: z.number().int().min(1).max(64).optional(),
    maxAttempts: z.number().int().min(1).max(100).optional(),
    processed: z.enum(['leave', 'move']).optional(),
    settleMs: z.number().int().min(0).max(600_000).optional(),
    runOn: runOnSchema.optional(),
  })
  .strict();
export type HotFolderSaveInput = z.infer<typeof hotFolderSaveSchema>;

const byId = z.object({ id: folderId }).strict();

export const hotFolderCalls = {
  'hotFolders.list': { input: z.undefined(), result: z.object({ folders: z.array(hotFolderSchema) }) },
  'hotFolders.save': { input: hotFolderSaveSchema, result: hotFolderSchema },
  'hotFolders.remove': { input: byId, result: z.object({ folders: z.array(hotFolderSchema) }) },
  'hotFolders.pause': { input: byId, result: hotFolderSchema },
  'hotFolders.resume': { input: byId, result: hotFolderSchema },
  'hotFolders.retryFailed': { input: byId, result: z.object({ count: z.number().int() }) },
  'hotFolders.files': { input: byId, result: z.object({ files: z.array(hotFileSchema) }) },
  /** Opens the folder's output folder in the file manager. */
  'hotFolders.openOutput': { input: byId, result: z.null() },
  /** The native folder picker (Electron); `{ path: null }` when cancelled. Fails with invalid_input where there is none (harness). */
  'dialog.pickFolder': {
    input: z
      .object({ title: z.string().max(200).optional() })
      .strict()
      .optional(),
    result: z.object({ path: z.string().nullable() }),
  },
} as const;

export const hotFolderEvents = {
  /** A folder's status or counters changed. */
  'hotFolders.changed': hotFolderSchema,
  /** A file's row changed. */
  'hotFolders.file': hotFileSchema,
  /** Every file seen has finished after a batch of work (the UI notifies). */
  'hotFolders.drained': z.object({ folderId: z.string(), name: z.string(), counters: hotFolderCountersSchema }),
} as const;

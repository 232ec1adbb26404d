// The History view's call: past jobs, a page at a time, from this app's job journal ("app") or from
// the active server's own history ("server": the local server's /api/history, the cloud's GET /api/jobs).
import { z } from 'zod';

// Self-contained (contract.ts imports this file): the same shapes as contract.ts's file and phase.
const jobPhaseSchema = z.enum(['pending', 'running', 'succeeded', 'failed', 'cancelled']);
const fileRefSchema = z.object({ filename: z.string().min(1).max(1024), subfolder: z.string().max(1024), type: z.string().min(1).max(32) });

export const historySourceSchema = z.enum(['app', 'server']);
export type HistorySource = z.infer<typeof historySourceSchema>;

export const historyEntrySchema = z.object({
  promptId: z.string(),
  /** The workflow's name when known, else "workflow". */
  label: z.string(),
  phase: jobPhaseSchema,
  /** When the job was submitted / ended (epoch ms), when known. */
  submittedAt: z.number().nullable(),
  finishedAt: z.number().nullable(),
  /** What went wrong, in the server's words, for failed jobs. */
  errorMessage: z.string().nullable(),
  outputs: z.array(fileRefSchema.extend({ node: z.string(), key: z.string() })),
  /** The workflow exactly as submitted (exact JSON text: 64-bit seeds keep every digit); null when unknown. */
  workflowJson: z.string().nullable(),
  origin: z.enum(['window', 'cli', 'hot-folder', 'other']).nullable(),
});
export type HistoryEntryView = z.infer<typeof historyEntrySchema>;

export const historyPageSchema = z.object({
  source: historySourceSchema,
  entries: z.array(historyEntrySchema),
  offset: z.number().int(),
  hasMore: z.boolean(),
  /** Why the page is empty or partial when that is not the whole story (e.g. the cloud's list is not wired yet). */
  note: z.string().nullable(),
});
export type HistoryPageView = z.infer<typeof historyPageSchema>;

export const historyCalls = {
  'history.list': {
    input: z.object({ source: historySourceSchema, offset: z.number().int().min(0).max(100_000), limit: z.number().int().min(1).max(100) }).strict(),
    result: historyPageSchema,
  },
} as const;

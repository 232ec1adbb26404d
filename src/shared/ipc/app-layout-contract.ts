// The form-as-an-app part of the renderer <-> main contract (merged into contract.ts's `calls`):
// the app the user arranged for a workflow (its pinned inputs, in order), kept in Flowdeck's own
// store under the data folder and found again by the workflow file's path, its content hash or
// its shape; and saving an app into a UI file's `extra.linearData`, where the editor keeps it
// (in place, refused when the file changed since it was opened; or as a new file through the
// save dialog).
import { z } from 'zod';

/** At most this many inputs in one app (a graph's every input is far fewer). */
export const MAX_APP_INPUTS = 500;

export const appInputSchema = z.object({ nodeId: z.string().min(1).max(200), name: z.string().min(1).max(200) }).strict();
export type AppInputView = z.infer<typeof appInputSchema>;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 digest in hex');

/** How a workflow is recognised: where it was opened from, what it holds, and its graph's shape. */
export const appLayoutKeySchema = z
  .object({
    /** The workflow file's full path, when it was opened from disk; null otherwise. */
    path: z.string().min(1).max(4096).nullable(),
    /** SHA-256 of the workflow's exact JSON text (the UI graph when there is one, else the API prompt). */
    contentHash: sha256Hex,
    /** The graph's node ids and classes, hashed: the same workflow with other values. */
    shape: z.string().min(1).max(100),
  })
  .strict();
export type AppLayoutKey = z.infer<typeof appLayoutKeySchema>;

/** How a kept app matched: this very content, the same file with the same graph, or only the same graph. */
export const appLayoutMatchSchema = z.enum(['content', 'path', 'shape']);

const editorFileInput = {
  inputs: z.array(appInputSchema).max(MAX_APP_INPUTS),
};

export const appLayoutCalls = {
  /** The app kept for a workflow, best match first; null when there is none. */
  'apps.get': {
    input: appLayoutKeySchema,
    result: z.object({ inputs: z.array(appInputSchema), match: appLayoutMatchSchema, savedAt: z.number() }).nullable(),
  },
  /** Keeps the app arranged for a workflow (replacing the one kept for that content or that file's graph). */
  'apps.keep': {
    input: z.object({ key: appLayoutKeySchema, ...editorFileInput }).strict(),
    result: z.object({ savedAt: z.number() }),
  },
  /**
   * Writes the app into the UI file at `path` (its extra.linearData, linearMode on), keeping every
   * other byte of the file; refused when the file's bytes are no longer those it had when it was
   * opened (`fileHash`, from workflow.open). Answers the file's new text and hash.
   */
  'apps.saveToFile': {
    input: z.object({ path: z.string().min(1).max(4096), fileHash: sha256Hex, ...editorFileInput }).strict(),
    result: z.object({ path: z.string(), fileHash: sha256Hex, uiWorkflowJson: z.string() }),
  },
  /**
   * "Save as…": the UI graph with the app in it, written where the user picks in the save dialog
   * (the desktop app; where there is none, the page downloads it instead). `saved` false: cancelled.
   */
  'apps.saveAs': {
    input: z
      .object({
        uiWorkflowJson: z
          .string()
          .min(2)
          .max(50 * 1024 * 1024),
        suggestedName: z.string().min(1).max(255),
        ...editorFileInput,
      })
      .strict(),
    result: z.object({ saved: z.boolean(), path: z.string().nullable(), fileHash: sha256Hex.nullable(), uiWorkflowJson: z.string().nullable() }),
  },
} as const;

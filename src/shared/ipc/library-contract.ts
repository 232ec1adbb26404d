// The outputs library's part of the renderer <-> main contract: item views, list filters, the
// calls and the `library.changed` event. Merged into contract.ts's `calls` and `events`.
//
// Files and thumbnails are not carried over IPC for the grid: the renderer loads them by URL from
// the library media scheme (see src/shared/library-media.ts), which serves files of the library
// folder only, by item id. `library.bytes` exists for the few places that need the bytes
// themselves (the mask painter, copying an image).
import { z } from 'zod';

const bytesSchema = z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'expected bytes (a Uint8Array)');
const itemId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const LIBRARY_MEDIA_KINDS = ['image', 'video', 'audio', 'model', 'other'] as const;
export const libraryMediaKindSchema = z.enum(LIBRARY_MEDIA_KINDS);
export const libraryItemStatusSchema = z.enum(['pending', 'downloading', 'done', 'failed']);

/** One output in the grid: what a tile, its badge and its filters need. */
export const libraryItemSchema = z.object({
  id: z.number().int(),
  promptId: z.string(),
  /** The server's file name (shown, and the tile image's alternative text; never used as a path). */
  fileName: z.string(),
  mediaKind: libraryMediaKindSchema,
  mime: z.string().nullable(),
  size: z.number().nullable(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  durationMs: z.number().nullable(),
  /** When the job was created (epoch ms). */
  createdAt: z.number(),
  status: libraryItemStatusSchema,
  /** Why the last download failed, in plain words. */
  error: z.string().nullable(),
  workflowName: z.string().nullable(),
  profileId: z.string().nullable(),
  serverUrl: z.string(),
  /** The file is in the library folder (status done). */
  hasFile: z.boolean(),
});
export type LibraryItemView = z.infer<typeof libraryItemSchema>;

/** One output with everything known about it: the detail panel. */
export const libraryDetailSchema = libraryItemSchema.extend({
  /** Absolute path in the library folder; null until downloaded. */
  path: z.string().nullable(),
  nodeId: z.string(),
  nodeClass: z.string().nullable(),
  outputKey: z.string(),
  file: z.object({ filename: z.string(), subfolder: z.string(), type: z.string() }),
  sha256: z.string().nullable(),
  attempts: z.number().int(),
  retryAt: z.number().nullable(),
  promptText: z.string(),
  /** The run's literal input values per node id, as exact JSON text (big integers stay exact). */
  inputsJson: z.string(),
  /** The workflow as submitted, as exact JSON text; null when it was not recorded. */
  workflowJson: z.string().nullable(),
  /** For outputs of a hot folder: the input file they were made from. */
  sourceFile: z.string().nullable(),
});
export type LibraryDetailView = z.infer<typeof libraryDetailSchema>;

export const libraryFilterSchema = z
  .object({
    /** Full-text search over prompt text, workflow name, file name and node class. */
    query: z.string().max(500).optional(),
    type: libraryMediaKindSchema.optional(),
    /** Inclusive lower bound on createdAt (epoch ms). */
    since: z.number().optional(),
    /** Exclusive upper bound on createdAt (epoch ms). */
    until: z.number().optional(),
    /** Workflow name, matched exactly (case-insensitively). */
    workflow: z.string().max(1024).optional(),
    /** Profile id or base URL. */
    server: z.string().max(2048).optional(),
    offset: z.number().int().min(0).optional(),
    /** Default 200, at most 10,000. */
    limit: z.number().int().min(1).max(10_000).optional(),
  })
  .strict();
export type LibraryFilterView = z.infer<typeof libraryFilterSchema>;

export const libraryFacetsSchema = z.object({
  workflows: z.array(z.object({ name: z.string(), count: z.number().int() })),
  /** `server` is what the `server` filter takes (profile id, else base URL); `label` is shown. */
  servers: z.array(z.object({ server: z.string(), label: z.string(), count: z.number().int() })),
});

export const libraryInfoSchema = z.object({
  /** The library folder on disk. */
  libraryDir: z.string(),
  /** Base of the media URLs (see library-media.ts): a custom scheme in Electron, a path in the harness. */
  mediaBase: z.string(),
  /** Whether open / show in folder can work here (false in the browser harness on a headless machine). */
  canReveal: z.boolean(),
  /** The folder the next start will use (a changed setting takes effect then); equal to libraryDir when unchanged. */
  nextLibraryDir: z.string(),
  /** The folder is set by the FLOWDECK_LIBRARY_DIR environment variable, which wins over the setting. */
  fromEnvironment: z.boolean(),
});

export const librarySetFolderResultSchema = z.object({
  libraryDir: z.string(),
  nextLibraryDir: z.string(),
  /** What happens now, in plain words (it takes effect on the next start; existing items stay where they are). */
  message: z.string(),
});

export const libraryChangedSchema = z.object({
  added: z.array(libraryItemSchema),
  updated: z.array(libraryItemSchema),
  removed: z.array(z.number().int()),
});
export type LibraryChangedView = z.infer<typeof libraryChangedSchema>;

export const libraryCalls = {
  'library.info': { input: z.undefined(), result: libraryInfoSchema },
  'library.list': { input: libraryFilterSchema.optional(), result: z.object({ items: z.array(libraryItemSchema), total: z.number().int() }) },
  'library.facets': { input: z.undefined(), result: libraryFacetsSchema },
  'library.get': { input: z.object({ id: itemId }).strict(), result: libraryDetailSchema },
  /** Moves the files to the OS trash and forgets the items. */
  'library.delete': {
    input: z.object({ ids: z.array(itemId).min(1).max(10_000) }).strict(),
    result: z.object({
      removed: z.number().int(),
      failed: z.array(z.object({ id: z.number().int(), message: z.string() })),
      /** Of the removed items, how many kept their file because another item uses the same file. */
      keptShared: z.number().int().optional(),
    }),
  },
  /** Tries a failed download again now. */
  'library.retry': { input: z.object({ id: itemId }).strict(), result: libraryItemSchema },
  /** The file's bytes (mask painter, copy image); at most 100 MB. */
  'library.bytes': { input: z.object({ id: itemId }).strict(), result: z.object({ mime: z.string(), bytes: bytesSchema }) },
  /**
   * Chooses the library folder for new outputs (null: back to the default, <data folder>/library).
   * Takes effect on the next start; items already in the library stay where they are.
   */
  'library.setFolder': { input: z.object({ path: z.string().min(1).max(4096).nullable() }).strict(), result: librarySetFolderResultSchema },
  /** Opens the file with the system's default app, or shows it in the file manager. */
  'library.reveal': { input: z.object({ id: itemId, action: z.enum(['open', 'folder']) }).strict(), result: z.null() },
} as const;

export const libraryEvents = {
  /** Items added, updated (download progress, status) or removed; coalesced. */
  'library.changed': libraryChangedSchema,
} as const;

// THE contract between the renderer and the main process, declared once: every call (name, input
// schema, result schema) and every event (name, payload schema). The preload (Electron IPC) and
// the browser harness (WebSocket) carry exactly these shapes; the app core validates every input
// with these schemas and passes every result through them (which also strips any field a handler
// did not mean to send).
//
// Values that must stay exact:
// - Workflows travel as JSON TEXT (`workflowJson`), written with stringifyJsonExact and read with
//   parseJsonExact from src/shared/json.ts. A seed of 2^64-1 survives both transports that way
//   (structured clone through contextBridge and JSON over the harness WebSocket).
// - Numbers in node definitions that may exceed 2^53 (INT min/max/default) are `ExactNumber`:
//   a plain number when safe, else `{ bigint: "<digits>" }` (see exact.ts for the helpers).
// - Bytes (previews, outputs, uploads) are Uint8Array on both transports.
//
// Errors never cross as thrown Errors: every call resolves to `{ ok: true, value }` or
// `{ ok: false, error: { code, message, details? } }`.
import { z } from 'zod';
import type { CallName, EventName } from './names';
import { hotFolderCalls, hotFolderEvents } from './hot-folders-contract';
import { libraryCalls, libraryEvents } from './library-contract';
import { historyCalls } from './history-contract';
import { poolCalls, poolEvents } from './pool-contract';
import { appLayoutCalls } from './app-layout-contract';
import { templateListSchema, templateOpenInput, templateThumbnailInput, templateThumbnailSchema } from './templates-contract';
import { MAX_WORKFLOW_FILE_BYTES } from '../workflow-file-limit';

export { MAX_WORKFLOW_FILE_BYTES };

// ---------------------------------------------------------------------------------------------
// Shared pieces

export const ERROR_CODES = [
  'invalid_input',
  'unauthorized',
  'insufficient_credits',
  'subscription_inactive',
  'invalid_workflow',
  'keychain_unavailable',
  'network',
  'server',
  'not_found',
  'internal',
] as const;
export const errorCodeSchema = z.enum(ERROR_CODES);
export type IpcErrorCode = z.infer<typeof errorCodeSchema>;

export const ipcErrorSchema = z.object({
  code: errorCodeSchema,
  message: z.string(),
  details: z.unknown().optional(),
});
export type IpcError = z.infer<typeof ipcErrorSchema>;

/** details of an `invalid_workflow` error from run.submit: which node and input is wrong. */
export const nodeErrorSchema = z.object({
  nodeId: z.string(),
  classType: z.string().nullable(),
  inputName: z.string().nullable(),
  message: z.string(),
});
export const rejectionDetailsSchema = z.object({
  errorType: z.string(),
  nodeErrors: z.array(nodeErrorSchema),
});
export type RejectionDetails = z.infer<typeof rejectionDetailsSchema>;

/** details of a `keychain_unavailable` error from key.save: the fix is in `message`. */
export const keychainDetailsSchema = z.object({ canUseSessionOnly: z.literal(true) });

/** details of an `invalid_input` error: which fields failed. */
export const invalidInputDetailsSchema = z.object({ issues: z.array(z.object({ path: z.string(), message: z.string() })) });

export type Envelope<T> = { ok: true; value: T } | { ok: false; error: IpcError };

export const exactNumberSchema = z.union([z.number(), z.object({ bigint: z.string().regex(/^-?\d+$/) })]);
export type ExactNumber = z.infer<typeof exactNumberSchema>;

const bytesSchema = z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'expected bytes (a Uint8Array)');
const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
const id = z.string().min(1).max(200);
/** Calls that act on "the active profile" unless told otherwise. */
const profileTarget = z.object({ profileId: id.optional() }).strict().optional();
const noInput = z.undefined();

/** Where run.submit sends its runs: the active server, or the pool of servers set in Servers. */
export const runTargetSchema = z.enum(['active', 'pool']);
export type RunTarget = z.infer<typeof runTargetSchema>;

export const fileRefSchema = z.object({ filename: z.string().min(1).max(1024), subfolder: z.string().max(1024), type: z.string().min(1).max(32) });
export type FileRefView = z.infer<typeof fileRefSchema>;

// ---------------------------------------------------------------------------------------------
// Profiles and keys

export const profileKindSchema = z.enum(['cloud', 'local', 'demo', 'serverless', 'proxy']);
export const profileViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: profileKindSchema,
  /** For demo profiles: the built-in service's current address, or "" while it is not running. */
  baseUrl: z.string(),
  /** Proxy profiles: the server's own API behind the proxy (node definitions, queue), when set. */
  apiBaseUrl: z.string().optional(),
});
export type ProfileView = z.infer<typeof profileViewSchema>;

export const profilesStateSchema = z.object({ profiles: z.array(profileViewSchema), activeProfileId: z.string().nullable() });
export type ProfilesState = z.infer<typeof profilesStateSchema>;

export const keyStatusSchema = z.object({
  isSet: z.boolean(),
  /** Last four characters, only for keys long enough that this reveals little; never the key. */
  last4: z.string().nullable(),
  storage: z.enum(['keychain', 'session']).nullable(),
});
export type KeyStatus = z.infer<typeof keyStatusSchema>;

/**
 * Why the active server cannot run workflows, when known: each has its own words and action in the
 * renderer. null: nothing wrong is known.
 */
export const connectionProblemSchema = z.enum(['unreachable', 'not_workflow_server', 'no_key', 'key_rejected', 'subscription_inactive', 'no_credits']);
export type ConnectionProblem = z.infer<typeof connectionProblemSchema>;

export const connectionTestSchema = z.object({
  reachable: z.boolean(),
  /** null when the server needs no key (local) or could not be reached. */
  keyAccepted: z.boolean().nullable(),
  /** Only a submit reveals it (HTTP 429); null until then. */
  subscriptionActive: z.boolean().nullable(),
  nodeCount: z.number().int().nullable(),
  message: z.string(),
  /** What the test found wrong, if anything. */
  problem: connectionProblemSchema.nullable().optional(),
  /** Checks the test could not make, in words ("the key check: no API key is set"). */
  skipped: z.array(z.string()).optional(),
});
export type ConnectionTest = z.infer<typeof connectionTestSchema>;

export const connectionStateSchema = z.object({
  profileId: z.string().nullable(),
  state: z.enum(['connecting', 'connected', 'reconnecting', 'polling', 'offline']),
  message: z.string().nullable(),
  /** What is known to stop this server from running workflows (a rejected key, no credits, ...). */
  problem: connectionProblemSchema.nullable().optional(),
});
export type ConnectionStateView = z.infer<typeof connectionStateSchema>;

// ---------------------------------------------------------------------------------------------
// Node definitions, normalised from /api/object_info so the renderer need not know its tuple forms

export const nodeInputSchema = z.object({
  name: z.string(),
  required: z.boolean(),
  /** Value widgets (int, float, string, boolean, combo) versus links from another node's output. */
  kind: z.enum(['int', 'float', 'string', 'boolean', 'combo', 'link']),
  /** The server's type word: INT, FLOAT, STRING, BOOLEAN, COMBO, IMAGE, MODEL, ... */
  type: z.string(),
  default: z.union([z.string(), z.number(), z.boolean(), z.null(), z.object({ bigint: z.string() })]).optional(),
  min: exactNumberSchema.optional(),
  max: exactNumberSchema.optional(),
  step: exactNumberSchema.optional(),
  round: z.union([z.number(), z.literal(false)]).optional(),
  multiline: z.boolean().optional(),
  options: z.array(z.union([z.string(), z.number()])).optional(),
  multiselect: z.boolean().optional(),
  /** The input takes a file uploaded with upload.image (LoadImage's `image_upload`). */
  imageUpload: z.boolean().optional(),
  tooltip: z.string().optional(),
});
export type NodeInputView = z.infer<typeof nodeInputSchema>;

export const nodeClassSchema = z.object({
  name: z.string(),
  displayName: z.string(),
  category: z.string(),
  description: z.string(),
  outputNode: z.boolean(),
  /** Partner node: runs on an external service, billed to the account. */
  apiNode: z.boolean(),
  deprecated: z.boolean(),
  experimental: z.boolean(),
  /** In the server's input_order (required first, then optional); hidden inputs left out. */
  inputs: z.array(nodeInputSchema),
  outputs: z.array(z.object({ name: z.string(), type: z.string(), isList: z.boolean() })),
});
export type NodeClassView = z.infer<typeof nodeClassSchema>;

export const nodeDefinitionsSchema = z.object({
  profileId: z.string(),
  classes: z.record(z.string(), nodeClassSchema),
  /** True when the server has none to give (Comfy API v2 only, a serverless deployment): `classes` is empty. */
  none: z.boolean().optional(),
});

// ---------------------------------------------------------------------------------------------
// Workflows

/** A workflow that can run: its API prompt, and where it came from. */
const runnableWorkflowShape = {
  /** The API-format workflow as exact JSON text (parse it with parseJsonExact). */
  workflowJson: z.string(),
  nodeCount: z.number().int(),
  /** Classes the active profile's server does not define; null when definitions are not loaded. */
  unknownClasses: z.array(z.object({ nodeId: z.string(), classType: z.string() })).nullable(),
  /**
   * The editor graph (UI format) the prompt came from, as exact JSON text: a UI file, or an image's
   * `workflow` chunk. run.submit sends it on to a local server so the outputs open in its editor.
   */
  uiWorkflowJson: z.string().nullable().optional(),
  /** What the conversion from the UI format would have done silently (a Reroute that ends nowhere, ...). */
  warnings: z.array(z.string()).optional(),
};

export const workflowParseSchema = z.discriminatedUnion('format', [
  /** An API-format JSON file. */
  z.object({ format: z.literal('api'), ...runnableWorkflowShape }),
  /** A UI-format JSON file (the editor graph), converted with the active server's node definitions. */
  z.object({ format: z.literal('ui'), ...runnableWorkflowShape }),
  /** A PNG or WebP output carrying its workflow: the `prompt` that ran (else its converted `workflow`). */
  z.object({ format: z.literal('image'), ...runnableWorkflowShape }),
  /** A UI-format workflow that cannot be converted for the active server. */
  z.object({
    format: z.literal('conversion_failed'),
    message: z.string(),
    /** Node classes neither the server nor the file describes (custom nodes missing on the server). */
    missingClasses: z.array(z.string()),
    nodeId: z.string().nullable(),
  }),
  z.object({
    format: z.literal('invalid_json'),
    message: z.string(),
    /** 1-based line and column of the error, when the parser told where. */
    position: z.object({ offset: z.number().int(), line: z.number().int(), column: z.number().int() }).nullable(),
  }),
  /** Not a workflow at all, including an image that carries none (the message says which). */
  z.object({ format: z.literal('not_a_workflow'), message: z.string() }),
]);
export type WorkflowParseView = z.infer<typeof workflowParseSchema>;

export const workflowFileSchema = z.object({
  /** false when the user closed the file dialog. */
  opened: z.boolean(),
  name: z.string().nullable(),
  /** Full path when the file came from disk (dialog, recent list, harness path); null for content. */
  path: z.string().nullable(),
  parse: workflowParseSchema.nullable(),
  /** SHA-256 (hex) of the file's bytes as read, when it came from disk: saving into it later checks it is unchanged. */
  fileHash: z.string().optional(),
});

export const recentWorkflowSchema = z.object({ path: z.string(), name: z.string() });

// ---------------------------------------------------------------------------------------------
// Jobs and queue

export const jobPhaseSchema = z.enum(['pending', 'running', 'succeeded', 'failed', 'cancelled']);

export const outputFileSchema = fileRefSchema.extend({ node: z.string(), key: z.string() });
export type OutputFileView = z.infer<typeof outputFileSchema>;

export const jobSnapshotSchema = z.object({
  promptId: z.string(),
  profileId: z.string().nullable(),
  /** What the user ran (the workflow's file name, or "workflow"). */
  label: z.string(),
  /** Where the job was started, when main recorded it (absent on jobs journaled before it did). */
  origin: z.enum(['window', 'cli', 'hot-folder', 'other']).nullable().optional(),
  phase: jobPhaseSchema,
  /** The server's own status word, shown as is. */
  status: z.string(),
  submittedAt: z.number(),
  updatedAt: z.number(),
  finishedAt: z.number().nullable(),
  /** When the server began running it (the wait in the queue ended); absent or null when not known. */
  startedAt: z.number().nullable().optional(),
  /** The node running now and its step progress, when known. */
  currentNode: z.string().nullable(),
  progress: z.object({ value: z.number(), max: z.number() }).nullable(),
  /** Share of the workflow's nodes done (0..1), when known. */
  overall: z.number().nullable(),
  nodesDone: z.number().int(),
  nodesTotal: z.number().int().nullable(),
  /** The latest progress text a node sent (binary TEXT frames), if any. */
  progressText: z.string().nullable(),
  outputs: z.array(outputFileSchema),
  error: z
    .object({
      /** The server's own message. */
      message: z.string(),
      /** What the failure means and what to do, in plain language. */
      explanation: z.string().nullable(),
      exceptionType: z.string().nullable(),
      nodeId: z.string().nullable(),
      nodeType: z.string().nullable(),
      /** The server's traceback lines (each usually ends with a newline); empty when none was sent. */
      traceback: z.array(z.string().max(20_000)).max(500),
    })
    .nullable(),
  /** Set while the server has answered nothing about the job for a while: its state is unknown ("Check again"). */
  unreachable: z.object({ since: z.number(), reason: z.string() }).nullable().optional(),
  /** Until when the server keeps the job and its outputs (epoch ms; Comfy API v2's `expires_at`), where it says. */
  expiresAt: z.number().nullable().optional(),
});
export type JobSnapshotView = z.infer<typeof jobSnapshotSchema>;

export const queueEntrySchema = z.object({ promptId: z.string(), number: z.number().nullable() });
export const queueSchema = z.object({
  running: z.array(queueEntrySchema),
  pending: z.array(queueEntrySchema),
  /**
   * Set when the server has no queue to read (Comfy API v2 without v1 beside it): the lists are then
   * the unfinished jobs this app sent, not everybody's.
   */
  ownJobsOnly: z.boolean().optional(),
});
export type QueueView = z.infer<typeof queueSchema>;

export const previewSchema = z.object({
  promptId: z.string(),
  nodeId: z.string().nullable(),
  mime: z.enum(['image/jpeg', 'image/png']),
  bytes: bytesSchema,
  /** Frame number per job; the bridge acknowledges it so main sends the next (latest-wins). */
  seq: z.number().int(),
});
export type PreviewView = z.infer<typeof previewSchema>;

// ---------------------------------------------------------------------------------------------
// Uploads and outputs

export const uploadSchema = z.object({
  name: z.string(),
  subfolder: z.string(),
  type: z.string(),
  /** What to put into the workflow input (`subfolder/name` on local servers). */
  inputValue: z.string(),
  /** A small PNG data URL of the image, when it could be decoded (PNG, JPEG). */
  thumbnailDataUrl: z.string().nullable(),
  /** The file's own name, as the user knows it (the cloud stores it under a content hash). */
  originalName: z.string().optional(),
});
export type UploadView = z.infer<typeof uploadSchema>;

const fileName = z
  .string()
  .min(1)
  .max(255)
  .refine((s) => !/[\\/\0]/.test(s) && s.trim() !== '' && s !== '.' && s !== '..', 'a file name, not a path');

// ---------------------------------------------------------------------------------------------
// The calls

export const calls = {
  'profiles.list': { input: noInput, result: profilesStateSchema },
  'profiles.save': {
    input: z
      .object({
        /** Present to edit an existing profile; absent to add one. */
        id: id.optional(),
        name: z.string().trim().min(1).max(120),
        kind: profileKindSchema,
        /** Required for cloud and local; ignored for demo. */
        baseUrl: z.string().max(2048).optional(),
        /** Proxy profiles: the server's own API (node definitions, queue); "" for none; absent keeps what an edited profile had. */
        apiBaseUrl: z.string().max(2048).optional(),
        /** Make it the active profile (default: only when there is no active profile). */
        select: z.boolean().optional(),
      })
      .strict(),
    result: profileViewSchema,
  },
  'profiles.remove': { input: z.object({ id }).strict(), result: profilesStateSchema },
  'profiles.select': { input: z.object({ id }).strict(), result: profilesStateSchema },

  'key.status': { input: profileTarget, result: keyStatusSchema },
  'key.save': {
    input: z
      .object({
        profileId: id.optional(),
        key: z.string().trim().min(1).max(4096),
        /** Keep the key in memory for this session only (offered when no keychain exists). */
        sessionOnly: z.boolean().optional(),
      })
      .strict(),
    result: keyStatusSchema,
  },
  'key.remove': { input: profileTarget, result: keyStatusSchema },
  'connection.test': { input: profileTarget, result: connectionTestSchema },

  'nodes.definitions': { input: z.object({ profileId: id.optional(), refresh: z.boolean().optional() }).strict().optional(), result: nodeDefinitionsSchema },

  'workflow.open': {
    input: z
      .union([
        /** A file from the recent list, or (browser harness) any path on the host. */
        z.object({ path: z.string().min(1).max(4096) }).strict(),
        /** A file the page already read (drag and drop). */
        z.object({ name: fileName, text: z.string().max(50 * 1024 * 1024) }).strict(),
        /** A file the page read as bytes: JSON (API or UI format), or a PNG/WebP carrying a workflow. */
        z.object({ name: fileName, bytes: bytesSchema.refine((b) => b.byteLength <= MAX_WORKFLOW_FILE_BYTES, 'at most 50 MB') }).strict(),
        /** The workflow of a library item: the one its image carries, else the one recorded with it. */
        z.object({ libraryId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }).strict(),
      ])
      /** No input: the native file dialog (Electron). */
      .optional(),
    result: workflowFileSchema,
  },
  'workflow.parse': { input: z.object({ text: z.string().max(50 * 1024 * 1024) }).strict(), result: workflowParseSchema },
  'workflow.recent': { input: noInput, result: z.object({ items: z.array(recentWorkflowSchema) }) },

  'run.submit': {
    input: z
      .object({
        workflowJson: z
          .string()
          .min(2)
          .max(50 * 1024 * 1024),
        repeat: z.number().int().min(1).max(100).optional(),
        label: z.string().max(255).optional(),
        /** The editor graph the workflow came from (workflow.open's uiWorkflowJson): sent on local servers only. */
        uiWorkflowJson: z
          .string()
          .min(2)
          .max(50 * 1024 * 1024)
          .optional(),
        /**
         * Where the runs go: the active server (default), or the pool set in Servers, each run to
         * the least-loaded pool server that can run it (with failover).
         */
        target: runTargetSchema.optional(),
      })
      .strict(),
    /**
     * The jobs accepted by now. On the pool, runs waiting for room are sent as servers free up
     * (`waiting` of them); their jobs then appear through job.update.
     */
    result: z.object({ promptIds: z.array(z.string()), waiting: z.number().int().min(0).optional() }),
  },
  'jobs.list': { input: noInput, result: z.object({ jobs: z.array(jobSnapshotSchema) }) },
  // A running cloud job cannot be stopped alone: when others run too, nothing is stopped and
  // `stopsAllRunning` says how many would be; the renderer asks, then sends `stopAllRunning`.
  'jobs.cancel': {
    input: z.object({ promptId: id, stopAllRunning: z.boolean().optional() }).strict(),
    result: z.object({ cancelled: z.boolean(), stopsAllRunning: z.number().int().min(2).optional() }),
  },
  /** Asks the server about a job now (one whose server stopped answering); the job as it then is. */
  'jobs.checkAgain': { input: z.object({ promptId: id }).strict(), result: jobSnapshotSchema },

  'queue.get': { input: noInput, result: queueSchema },
  'queue.cancel': { input: z.object({ promptIds: z.array(id).min(1).max(1000) }).strict(), result: queueSchema },
  'queue.interrupt': { input: z.object({ promptId: id.optional() }).strict().optional(), result: queueSchema },
  'queue.clearPending': { input: noInput, result: queueSchema },

  'upload.image': {
    input: z
      .union([
        z.object({ path: z.string().min(1).max(4096) }).strict(),
        z.object({ name: fileName, bytes: bytesSchema.refine((b) => b.byteLength <= MAX_UPLOAD_BYTES, 'at most 100 MB') }).strict(),
        /** An output kept in the library ("use as input image"). */
        z.object({ libraryId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }).strict(),
      ])
      /** No input: the native file dialog (Electron). */
      .optional(),
    result: uploadSchema.nullable(),
  },
  'upload.mask': {
    input: z
      .object({
        /** The uploaded original (as upload.image answered). */
        original: z.object({ name: z.string().min(1).max(1024), subfolder: z.string().max(1024), type: z.string().min(1).max(32) }).strict(),
        /** PNG, opaque where the image is kept, transparent where it is to be painted. */
        maskPng: bytesSchema.refine((b) => b.byteLength <= MAX_UPLOAD_BYTES, 'at most 100 MB'),
        /** The name to store it under (e.g. photo-mask.png); "mask.png" when absent. */
        filename: fileName.optional(),
      })
      .strict(),
    result: uploadSchema,
  },
  'output.fetch': {
    input: z.object({ promptId: id, file: fileRefSchema.strict() }).strict(),
    result: z.object({ mime: z.string(), bytes: bytesSchema }),
  },
  /** An uploaded input image on the active server (the mask painter re-opens a masked image from it). */
  'input.fetch': {
    input: z.object({ name: z.string().min(1).max(1024), subfolder: z.string().max(1024), type: z.literal('input') }).strict(),
    result: z.object({ mime: z.string(), bytes: bytesSchema }),
  },
  'preview.ack': { input: z.object({ promptId: id, seq: z.number().int() }).strict(), result: z.null() },
  'renderer.ready': { input: noInput, result: z.object({ version: z.string() }) },
  /** The active server's template gallery ("New from template"). */
  'templates.list': { input: noInput, result: templateListSchema },
  'templates.thumbnail': { input: templateThumbnailInput, result: templateThumbnailSchema },
  /** A template opened as workflow.open opens a file (converted with the server's definitions). */
  'templates.open': { input: templateOpenInput, result: workflowFileSchema },
  ...libraryCalls,
  ...hotFolderCalls,
  ...historyCalls,
  ...poolCalls,
  ...appLayoutCalls,
} as const satisfies { [N in CallName]: { input: z.ZodType; result: z.ZodType } };

/** Something the user should know that no call asked about (a damaged store was reset at start). */
export const appNoticeSchema = z.object({ level: z.enum(['warning']), message: z.string().max(4000) });

export const events = {
  'connection.state': connectionStateSchema,
  'job.update': jobSnapshotSchema,
  'job.preview': previewSchema,
  'queue.changed': queueSchema,
  'profiles.changed': profilesStateSchema,
  ...libraryEvents,
  ...hotFolderEvents,
  ...poolEvents,
  'app.notice': appNoticeSchema,
} as const satisfies { [E in EventName]: z.ZodType };

// ---------------------------------------------------------------------------------------------
// Types derived from the contract

export type Calls = typeof calls;
export type Events = typeof events;
/** What a caller passes (before defaults). */
export type CallInput<N extends CallName> = z.input<Calls[N]['input']>;
/** What a handler receives (after validation). */
export type CallParsedInput<N extends CallName> = z.output<Calls[N]['input']>;
export type CallResult<N extends CallName> = z.output<Calls[N]['result']>;
export type EventPayload<E extends EventName> = z.output<Events[E]>;

/** One handler per call: the app core implements this, the type test proves none is missing. */
export type CallHandlers = { [N in CallName]: (input: CallParsedInput<N>) => Promise<CallResult<N>> };

/** `invoke(name)` for calls without input, `invoke(name, input)` otherwise. */
export type InvokeArgs<N extends CallName> = undefined extends CallInput<N> ? [input?: CallInput<N>] : [input: CallInput<N>];

/** The object the renderer finds at `window.flowdeck`, the same over IPC and over the harness. */
export interface FlowdeckApi {
  invoke<N extends CallName>(name: N, ...args: InvokeArgs<N>): Promise<Envelope<CallResult<N>>>;
  /** Subscribes to an event; returns the unsubscribe function. A listener may return a promise:
   * for job.preview the next frame of that job is released only once it settles. */
  on<E extends EventName>(name: E, listener: (payload: EventPayload<E>) => void | Promise<void>): () => void;
}

export type { CallName, EventName } from './names';
export * from './library-contract';
export * from './hot-folders-contract';
export * from './history-contract';
export * from './pool-contract';
export * from './app-layout-contract';
export * from './templates-contract';

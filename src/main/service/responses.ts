// Schemas of the REST answers, and their conversion into the normalised types of types.ts.
// Every answer is untrusted: shapes are checked, unknown fields ignored. Queue entries are read
// only for their id (index 1) and number (index 0): older local servers leave the API key inside
// an entry's extra_data, so nothing else of an entry is ever kept.
import { z } from 'zod';
import { redactSecret, ServiceError, WorkflowRejectedError } from './errors';
import { collectHistoryOutputs } from './outputs';
import { classifyStatusWord } from './status-words';
import { isJsonObject } from '@shared/json';
import type { JobStatusReading, NodeErrorDetail, OutputFile, QueueEntry, QueueSnapshot, SubmitResult, UploadResult } from './types';

// ---------------------------------------------------------------- submit

export const submitSuccessSchema = z.object({
  prompt_id: z.string().min(1),
  number: z.number().nullish(),
  node_errors: z.unknown().optional(),
});

const errorItemSchema = z.object({
  type: z.string().nullish(),
  message: z.string().nullish(),
  details: z.string().nullish(),
  extra_info: z.record(z.string(), z.unknown()).nullish(),
});

const nodeErrorSchema = z.object({
  errors: z.array(errorItemSchema).nullish(),
  class_type: z.string().nullish(),
  dependent_outputs: z.array(z.unknown()).nullish(),
});

/** Local servers (and compatible ones): a structured error plus per-node errors. */
export const structuredRejectionSchema = z.object({
  error: errorItemSchema,
  node_errors: z.record(z.string(), nodeErrorSchema).nullish(),
});

/** The cloud's free-form rejections. */
export const textRejectionSchema = z.object({ error: z.string() });
export const codeMessageSchema = z.object({ code: z.union([z.string(), z.number()]).nullish(), message: z.string() });

/** Per-input error types: their `details` is the input's name when extra_info has none. */
const PER_INPUT_TYPES = new Set([
  'required_input_missing',
  'value_not_in_list',
  'value_smaller_than_min',
  'value_bigger_than_max',
  'return_type_mismatch',
  'custom_validation_failed',
  'invalid_input_type',
]);

const IDENTIFIER = /^[A-Za-z_][\w.]*$/;

function inputNameOf(type: string, details: string, extraInfo: Record<string, unknown> | null | undefined): string | null {
  const fromExtra = extraInfo?.input_name;
  if (typeof fromExtra === 'string' && fromExtra !== '') return fromExtra;
  // "details" is the input's name for per-input errors; "steps, abc, invalid literal" or
  // "'99'" are not names, so only a bare identifier (or its first comma part) qualifies.
  const candidate = details.split(',')[0]?.trim() ?? '';
  if ((PER_INPUT_TYPES.has(type) || candidate === details) && IDENTIFIER.test(candidate)) return candidate;
  return null;
}

function nodeErrorDetails(nodeErrors: z.infer<typeof structuredRejectionSchema>['node_errors'], secret: string | null): NodeErrorDetail[] {
  const out: NodeErrorDetail[] = [];
  for (const [nodeId, node] of Object.entries(nodeErrors ?? {})) {
    const classType = node.class_type ?? null;
    const errors = node.errors ?? [];
    if (errors.length === 0) {
      out.push({ nodeId, classType, inputName: null, type: 'node_error', message: 'The node failed validation', details: '' });
      continue;
    }
    for (const e of errors) {
      const type = e.type ?? 'error';
      const details = redactSecret(e.details ?? '', secret);
      out.push({
        nodeId,
        classType,
        inputName: inputNameOf(type, details, e.extra_info),
        type,
        message: redactSecret(e.message ?? '', secret),
        details,
      });
    }
  }
  return out;
}

const MAX_SERVER_TEXT = 500;

function clip(text: string): string {
  return text.length > MAX_SERVER_TEXT ? `${text.slice(0, MAX_SERVER_TEXT)}…` : text;
}

/**
 * Reads a submit answer's body as a rejection: the structured local form, the cloud's
 * `{error: "text"}` or `{code, message}`. Returns null when the body is none of these.
 */
export function rejectionFromBody(body: unknown, status: number | null, secret: string | null): WorkflowRejectedError | null {
  const structured = structuredRejectionSchema.safeParse(body);
  if (structured.success) {
    const { error, node_errors } = structured.data;
    const message = redactSecret(error.message ?? 'the workflow is invalid', secret);
    const details = redactSecret(error.details ?? '', secret);
    const summary = clip(details && !message.includes(details) ? `${message} (${details})` : message);
    return new WorkflowRejectedError(error.type ?? 'invalid_prompt', summary, nodeErrorDetails(node_errors, secret), status);
  }
  const text = textRejectionSchema.safeParse(body);
  if (text.success) return new WorkflowRejectedError('rejected', clip(redactSecret(text.data.error, secret)), [], status);
  const coded = codeMessageSchema.safeParse(body);
  if (coded.success) {
    const code = coded.data.code == null ? 'rejected' : String(coded.data.code);
    return new WorkflowRejectedError(code, clip(redactSecret(coded.data.message, secret)), [], status);
  }
  return null;
}

/** Whether a submit rejection says the client-chosen prompt_id is already taken (a retry that was in fact accepted). */
export function isDuplicatePromptId(error: WorkflowRejectedError): boolean {
  const text = `${error.errorType} ${error.message}`.toLowerCase();
  return text.includes('invalid_prompt_id') && text.includes('already exists');
}

/** Parses a submit answer (any status): success, or throws the rejection. */
export function parseSubmitAnswer(body: unknown, status: number, secret: string | null): SubmitResult {
  // A 200 body carrying `error` is a rejection too.
  if (typeof body === 'object' && body !== null && 'error' in body && (body as { error: unknown }).error != null) {
    const rejection = rejectionFromBody(body, status, secret);
    if (rejection) throw rejection;
  }
  const ok = submitSuccessSchema.safeParse(body);
  if (ok.success) return { promptId: ok.data.prompt_id, number: ok.data.number ?? null };
  throw new ServiceError('protocol', 'The server accepted the workflow but its answer has no prompt_id.', { status, retryable: false });
}

/** A short server-supplied reason from an error body, for appending to a status message. */
export function serverReason(body: unknown, secret: string | null): string | null {
  const coded = codeMessageSchema.safeParse(body);
  if (coded.success) return clip(redactSecret(coded.data.message, secret));
  const text = textRejectionSchema.safeParse(body);
  if (text.success) return clip(redactSecret(text.data.error, secret));
  const structured = structuredRejectionSchema.safeParse(body);
  if (structured.success && structured.data.error.message) return clip(redactSecret(structured.data.error.message, secret));
  return null;
}

// ---------------------------------------------------------------- uploads

export const uploadAnswerSchema = z.object({
  name: z.string().min(1),
  subfolder: z.string().nullish(),
  type: z.string().nullish(),
});

export function parseUploadAnswer(body: unknown, defaultType: string): UploadResult | null {
  const parsed = uploadAnswerSchema.safeParse(body);
  if (!parsed.success) return null;
  return { name: parsed.data.name, subfolder: parsed.data.subfolder ?? '', type: parsed.data.type ?? defaultType };
}

// ---------------------------------------------------------------- queue

/**
 * Local `[number, id, prompt, extra_data, outputs]`, cloud `[number, id, workflow, outputs, {create_time}]`, or an object with prompt_id.
 * With `details`, an array entry's workflow and creation time are read too. Of extra_data only
 * create_time is read: older local servers keep the API key in there.
 */
function queueEntry(value: unknown, details: boolean): QueueEntry | null {
  if (Array.isArray(value)) {
    const id: unknown = value[1];
    const n: unknown = value[0];
    if (typeof id !== 'string' || id === '') return null;
    const entry: QueueEntry = { promptId: id, number: typeof n === 'number' && Number.isFinite(n) ? n : null };
    if (!details) return entry;
    if (isJsonObject(value[2])) entry.workflow = value[2];
    const createdAt = createTimeOf(value[3]) ?? createTimeOf(value[4]);
    if (createdAt !== undefined) entry.createdAt = createdAt;
    return entry;
  }
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    const id = o.prompt_id ?? o.id;
    const n = o.number;
    if (typeof id !== 'string' || id === '') return null;
    return { promptId: id, number: typeof n === 'number' && Number.isFinite(n) ? n : null };
  }
  return null;
}

/** A queue entry's create_time in epoch ms: a local server's extra_data writes ms, the cloud's seconds. */
function createTimeOf(value: unknown): number | undefined {
  if (!isJsonObject(value)) return undefined;
  const t = value.create_time;
  if (typeof t === 'bigint') return undefined;
  if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0) return undefined;
  return t < 1e11 ? t * 1000 : t;
}

export const queueAnswerSchema = z.object({
  queue_running: z.array(z.unknown()).nullish(),
  queue_pending: z.array(z.unknown()).nullish(),
});

/** The queue; `details`: with each entry's workflow and creation time (read the answer exactly then). */
export function parseQueueAnswer(body: unknown, options: { details?: boolean } = {}): QueueSnapshot | null {
  const parsed = queueAnswerSchema.safeParse(body);
  if (!parsed.success) return null;
  const details = options.details === true;
  const entries = (list: unknown[] | null | undefined): QueueEntry[] =>
    (list ?? []).map((v) => queueEntry(v, details)).filter((e): e is QueueEntry => e !== null);
  return { running: entries(parsed.data.queue_running), pending: entries(parsed.data.queue_pending) };
}

// ---------------------------------------------------------------- status (cloud)

export const jobStatusSchema = z.object({
  status: z.string(),
  id: z.string().nullish(),
  created_at: z.unknown().optional(),
  updated_at: z.unknown().optional(),
  error_message: z.string().nullish(),
});

export function parseJobStatusAnswer(body: unknown, secret: string | null): JobStatusReading | null {
  const parsed = jobStatusSchema.safeParse(body);
  if (!parsed.success) return null;
  const reading = classifyStatusWord(parsed.data.status);
  if (parsed.data.error_message) reading.errorMessage = clip(redactSecret(parsed.data.error_message, secret));
  return reading;
}

// ---------------------------------------------------------------- history

const historyMessageSchema = z.tuple([z.string(), z.unknown()]).rest(z.unknown());

export const historyEntrySchema = z.object({
  outputs: z.record(z.string(), z.unknown()).nullish(),
  status: z
    .object({
      status_str: z.string().nullish(),
      completed: z.boolean().nullish(),
      messages: z.array(z.unknown()).nullish(),
    })
    .nullish(),
});

const executionErrorSchema = z.object({
  node_id: z.union([z.string(), z.number().transform(String)]).nullish(),
  node_type: z.string().nullish(),
  exception_type: z.string().nullish(),
  exception_message: z.string().nullish(),
  traceback: z.union([z.array(z.string()), z.string()]).nullish(),
});

export interface HistoryError {
  exceptionType: string;
  exceptionMessage: string;
  nodeId: string | null;
  nodeType: string | null;
  traceback: string[];
}

export interface ParsedHistoryEntry {
  reading: JobStatusReading;
  outputs: OutputFile[];
  error?: HistoryError;
}

function errorText(error: HistoryError): string {
  const where = error.nodeId ? ` (node ${error.nodeId}${error.nodeType ? `, ${error.nodeType}` : ''})` : '';
  return `${error.exceptionType || 'Error'}${where}: ${error.exceptionMessage.trim()}`;
}

/**
 * One history entry. `status_str` success -> succeeded; error -> failed, or cancelled when the
 * messages hold execution_interrupted. An entry without a status (servers older than the field)
 * is a finished job: it appears in history only after it ran.
 */
export function parseHistoryEntry(entry: unknown, secret: string | null): ParsedHistoryEntry | null {
  const parsed = historyEntrySchema.safeParse(entry);
  if (!parsed.success) return null;
  const outputs = collectHistoryOutputs(parsed.data.outputs ?? {});
  const status = parsed.data.status;
  let interrupted = false;
  let error: HistoryError | undefined;
  for (const message of status?.messages ?? []) {
    const m = historyMessageSchema.safeParse(message);
    if (!m.success) continue;
    const [type, data] = m.data;
    if (type === 'execution_interrupted') interrupted = true;
    if (type === 'execution_error') {
      const e = executionErrorSchema.safeParse(data);
      if (!e.success) continue;
      const tb = e.data.traceback;
      error = {
        exceptionType: e.data.exception_type ?? '',
        exceptionMessage: redactSecret(e.data.exception_message ?? '', secret),
        nodeId: e.data.node_id ?? null,
        nodeType: e.data.node_type ?? null,
        traceback: tb == null ? [] : typeof tb === 'string' ? [tb] : tb,
      };
    }
  }
  const word = status?.status_str ?? (status?.completed === false ? 'error' : 'success');
  let reading: JobStatusReading = classifyStatusWord(word);
  if (reading.phase === 'failed' && interrupted && !error) reading = { phase: 'cancelled', raw: word, known: true };
  if (reading.phase === 'failed' && error) reading.errorMessage = errorText(error);
  const result: ParsedHistoryEntry = { reading, outputs };
  if (error) result.error = error;
  return result;
}

/** `/api/history/{id}` answers `{<id>: entry}`, `{}` while unknown or unfinished; some servers answer the entry itself. */
export function historyEntryFor(body: unknown, promptId: string): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  if (promptId in record) return record[promptId];
  if ('outputs' in record || 'status' in record) return record;
  return undefined;
}

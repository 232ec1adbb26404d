// Validation of the socket's text frames (PROTOCOL.md "WebSocket /ws") into ServerEvent.
// Schemas accept every variant the real servers send (node ids as numbers, a `traceback` as one
// string or a list of lines, a missing prompt_id on the trailing `executing null`) and ignore fields
// they do not use. A frame that is not JSON or fails its schema is rejected with a reason and
// counted, never thrown; a well-formed frame of an unknown type becomes `{type:'unknown'}`.
// The hot frames in their plain shape are checked by hand first (message-fast-path.ts, the same
// answers at a fraction of the cost); every other frame goes through these schemas.
import { z } from 'zod';
import { fastServerEvent } from './message-fast-path';
import type { NodeProgress, ServerEvent } from './types';

/** Node ids are strings on the wire; tolerate numbers from other implementations. */
const nodeId = z.union([z.string(), z.number().transform((n) => String(n))]);
const promptId = z.string();
const nullableNodeId = z.union([nodeId, z.null()]).optional();
const objectData = z.record(z.string(), z.unknown());

const statusData = z.object({
  status: z.object({ exec_info: z.object({ queue_remaining: z.number() }).partial().optional() }).nullish(),
  exec_info: z.object({ queue_remaining: z.number() }).partial().optional(),
  queue_remaining: z.number().optional(),
  sid: z.string().optional(),
});

const executingData = z.object({
  node: nullableNodeId,
  display_node: nullableNodeId,
  prompt_id: z.string().nullish(),
});

const progressData = z.object({
  value: z.number(),
  max: z.number(),
  prompt_id: z.string().nullish(),
  node: nullableNodeId,
});

const nodeProgress = z.object({
  value: z.number(),
  max: z.number(),
  state: z.string(),
  display_node_id: nodeId.nullish(),
});

const progressStateData = z.object({
  prompt_id: promptId,
  nodes: z.record(z.string(), nodeProgress),
});

const executedData = z.object({
  node: nodeId,
  output: z.union([objectData, z.null()]).optional(),
  prompt_id: promptId,
});

const traceback = z
  .union([z.array(z.string()), z.string(), z.null()])
  .optional()
  .transform((t) => (t == null ? [] : typeof t === 'string' ? [t] : t));

const executionErrorData = z.object({
  prompt_id: promptId,
  node_id: nodeId.nullish(),
  node_type: z.string().nullish(),
  exception_type: z.string().nullish(),
  exception_message: z.string().nullish(),
  traceback,
});

const interruptedData = z.object({
  prompt_id: promptId,
  node_id: nodeId.nullish(),
  node_type: z.string().nullish(),
});

const notificationData = z.object({ value: z.string() });
const promptOnlyData = z.object({ prompt_id: promptId });
const cachedData = z.object({ prompt_id: promptId, nodes: z.array(nodeId) });

// Every schema is built once, here: zod compiles an object schema on its first parse, so a schema
// built per message paid that compilation on every frame.
const envelope = z.object({ type: z.string(), data: z.unknown() });

export type MessageRejectReason =
  | 'invalid_json'
  | 'bad_envelope' // not an object with a string `type`
  | `bad_${string}`; // a known type whose data failed its schema, e.g. bad_progress

export type MessageParseResult = { ok: true; event: ServerEvent } | { ok: false; reason: MessageRejectReason };

function reject(reason: MessageRejectReason): MessageParseResult {
  return { ok: false, reason };
}

function ok(event: ServerEvent): MessageParseResult {
  return { ok: true, event };
}

/** Validates a decoded `{type, data}` object. */
export function parseServerMessageObject(value: unknown): MessageParseResult {
  const fast = fastServerEvent(value);
  return fast ? ok(fast) : parseWithSchemas(value);
}

/** The schemas' answer for any frame (exported for the test that holds the fast path to it). */
export function parseWithSchemas(value: unknown): MessageParseResult {
  const env = envelope.safeParse(value);
  if (!env.success) return reject('bad_envelope');
  const { type, data } = env.data;
  const bad = `bad_${type}` as const;
  switch (type) {
    case 'status': {
      const d = statusData.safeParse(data);
      if (!d.success) return reject(bad);
      const remaining = d.data.status?.exec_info?.queue_remaining ?? d.data.exec_info?.queue_remaining ?? d.data.queue_remaining;
      if (remaining === undefined) return reject(bad);
      return ok(d.data.sid === undefined ? { type, queueRemaining: remaining } : { type, queueRemaining: remaining, sid: d.data.sid });
    }
    case 'notification': {
      const d = notificationData.safeParse(data);
      return d.success ? ok({ type, value: d.data.value }) : reject(bad);
    }
    case 'feature_flags': {
      const d = objectData.safeParse(data);
      return d.success ? ok({ type, flags: d.data }) : reject(bad);
    }
    case 'execution_start':
    case 'execution_success': {
      const d = promptOnlyData.safeParse(data);
      return d.success ? ok({ type, promptId: d.data.prompt_id }) : reject(bad);
    }
    case 'execution_cached': {
      const d = cachedData.safeParse(data);
      return d.success ? ok({ type, promptId: d.data.prompt_id, nodes: d.data.nodes }) : reject(bad);
    }
    case 'executing': {
      // `data` may be missing entirely on old servers' end-of-queue marker; treat as node null.
      const d = executingData.safeParse(data ?? {});
      if (!d.success) return reject(bad);
      const base = { type, promptId: d.data.prompt_id ?? null, node: d.data.node ?? null } as const;
      return ok(typeof d.data.display_node === 'string' ? { ...base, displayNode: d.data.display_node } : base);
    }
    case 'progress': {
      const d = progressData.safeParse(data);
      if (!d.success) return reject(bad);
      return ok({ type, promptId: d.data.prompt_id ?? null, node: d.data.node ?? null, value: d.data.value, max: d.data.max });
    }
    case 'progress_state': {
      const d = progressStateData.safeParse(data);
      if (!d.success) return reject(bad);
      const nodes: Record<string, NodeProgress> = {};
      for (const [id, n] of Object.entries(d.data.nodes)) {
        const progress: NodeProgress = { value: n.value, max: n.max, state: n.state };
        if (typeof n.display_node_id === 'string') progress.displayNodeId = n.display_node_id;
        nodes[id] = progress;
      }
      return ok({ type, promptId: d.data.prompt_id, nodes });
    }
    case 'executed': {
      const d = executedData.safeParse(data);
      if (!d.success) return reject(bad);
      return ok({ type, promptId: d.data.prompt_id, node: d.data.node, output: d.data.output ?? null });
    }
    case 'execution_error': {
      const d = executionErrorData.safeParse(data);
      if (!d.success) return reject(bad);
      return ok({
        type,
        promptId: d.data.prompt_id,
        nodeId: d.data.node_id ?? null,
        nodeType: d.data.node_type ?? null,
        exceptionType: d.data.exception_type ?? '',
        exceptionMessage: d.data.exception_message ?? '',
        traceback: d.data.traceback,
      });
    }
    case 'execution_interrupted': {
      const d = interruptedData.safeParse(data);
      if (!d.success) return reject(bad);
      return ok({ type, promptId: d.data.prompt_id, nodeId: d.data.node_id ?? null, nodeType: d.data.node_type ?? null });
    }
    default: {
      // Custom nodes and newer servers add their own types; keep them visible, but only when the
      // frame still has the `{type, data:{...}}` shape.
      const d = objectData.safeParse(data);
      return d.success ? ok({ type: 'unknown', rawType: type, data: d.data }) : reject('bad_envelope');
    }
  }
}

/** Parses one text frame. */
export function parseServerMessage(text: string): MessageParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return reject('invalid_json');
  }
  return parseServerMessageObject(value);
}

/** Parses text frames and keeps a count of rejections by reason. */
export class MessageDecoder {
  readonly #rejected = new Map<string, number>();
  #total = 0;

  /** The event, or null for a rejected frame (counted under its reason). */
  decode(text: string): ServerEvent | null {
    const result = parseServerMessage(text);
    if (result.ok) return result.event;
    this.#total += 1;
    this.#rejected.set(result.reason, (this.#rejected.get(result.reason) ?? 0) + 1);
    return null;
  }

  get rejectedCount(): number {
    return this.#total;
  }

  /** Rejections by reason, e.g. { invalid_json: 2, bad_progress: 1 }. */
  rejectedByReason(): Record<string, number> {
    return Object.fromEntries(this.#rejected);
  }
}

// The events socket's hot text frames checked by hand before zod sees them (issue 25, "Batches").
// An instant job brings ~17 text frames (status, execution_start, execution_cached, executing x4,
// progress_state x6 with every node's state, executed, execution_success); zod parsed them at
// ~0.45 ms per job in a 200-image `watch --once`, the record of nodes in progress_state the most.
// This path accepts only the plain shapes real servers send (string node ids, finite numbers, plain
// JSON objects) and answers exactly what the schemas in messages.ts answer for them; anything else
// (a number as node id, a string traceback, a missing field, a wrong type) gets `undefined` and goes
// through the schemas, which stay the definition of what is accepted and why a frame is rejected.
// tests/service/messages.test.ts checks both paths give the same events on every variant it knows.
import type { NodeProgress, ServerEvent } from './types';

type Json = Record<string, unknown>;

/** A JSON object as JSON.parse makes it: not null, not an array, no prototype but Object's. */
function plainObject(value: unknown): value is Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isString = (v: unknown): v is string => typeof v === 'string';
/** null, undefined or a string: what `z.string().nullish()` (or a nullable node id) lets through without a transform. */
const isOptionalString = (v: unknown): v is string | null | undefined => v == null || typeof v === 'string';

function promptOnly(type: 'execution_start' | 'execution_success', data: Json): ServerEvent | undefined {
  return isString(data.prompt_id) ? { type, promptId: data.prompt_id } : undefined;
}

function executing(data: Json): ServerEvent | undefined {
  const { node, display_node: displayNode, prompt_id: promptId } = data;
  if (!isOptionalString(node) || !isOptionalString(displayNode) || !isOptionalString(promptId)) return undefined;
  const base = { type: 'executing', promptId: promptId ?? null, node: node ?? null } as const;
  return typeof displayNode === 'string' ? { ...base, displayNode } : base;
}

function progressState(data: Json): ServerEvent | undefined {
  const { prompt_id: promptId, nodes } = data;
  if (!isString(promptId) || !plainObject(nodes)) return undefined;
  const out: Record<string, NodeProgress> = {};
  for (const id in nodes) {
    // `for in` also walks inherited keys: a plain object has none, and __proto__ as a key is left to the schema path.
    if (id === '__proto__') return undefined;
    const n = nodes[id];
    if (!plainObject(n) || !isNumber(n.value) || !isNumber(n.max) || !isString(n.state) || !isOptionalString(n.display_node_id)) return undefined;
    const progress: NodeProgress = { value: n.value, max: n.max, state: n.state };
    if (typeof n.display_node_id === 'string') progress.displayNodeId = n.display_node_id;
    out[id] = progress;
  }
  return { type: 'progress_state', promptId, nodes: out };
}

function executed(data: Json): ServerEvent | undefined {
  const { node, output, prompt_id: promptId } = data;
  if (!isString(node) || !isString(promptId)) return undefined;
  if (output == null) return { type: 'executed', promptId, node, output: null };
  if (!plainObject(output) || Object.hasOwn(output, '__proto__')) return undefined;
  // The schema's record copies the object key by key; a copy here keeps the frame's own object private too.
  return { type: 'executed', promptId, node, output: { ...output } };
}

function executionCached(data: Json): ServerEvent | undefined {
  const { prompt_id: promptId, nodes } = data;
  if (!isString(promptId) || !Array.isArray(nodes) || !nodes.every(isString)) return undefined;
  return { type: 'execution_cached', promptId, nodes: [...(nodes as string[])] };
}

function status(data: Json): ServerEvent | undefined {
  // Only the shape every server sends: {status: {exec_info: {queue_remaining}}, sid?}.
  const { status: inner, sid } = data;
  if (data.exec_info !== undefined || data.queue_remaining !== undefined || (sid !== undefined && !isString(sid))) return undefined;
  if (!plainObject(inner) || !plainObject(inner.exec_info)) return undefined;
  const remaining = inner.exec_info.queue_remaining;
  if (!isNumber(remaining)) return undefined;
  return sid === undefined ? { type: 'status', queueRemaining: remaining } : { type: 'status', queueRemaining: remaining, sid };
}

function progress(data: Json): ServerEvent | undefined {
  const { value, max, prompt_id: promptId, node } = data;
  if (!isNumber(value) || !isNumber(max) || !isOptionalString(promptId) || !isOptionalString(node)) return undefined;
  return { type: 'progress', promptId: promptId ?? null, node: node ?? null, value, max };
}

/**
 * The event of a `{type, data}` frame of a hot type in its plain shape; `undefined` for every other
 * frame (another type, an unusual variant, anything invalid): the caller then runs the schemas.
 */
export function fastServerEvent(value: unknown): ServerEvent | undefined {
  if (!plainObject(value) || !plainObject(value.data)) return undefined;
  const { type, data } = value;
  switch (type) {
    case 'progress_state':
      return progressState(data);
    case 'executing':
      return executing(data);
    case 'status':
      return status(data);
    case 'execution_start':
    case 'execution_success':
      return promptOnly(type, data);
    case 'execution_cached':
      return executionCached(data);
    case 'executed':
      return executed(data);
    case 'progress':
      return progress(data);
    default:
      return undefined;
  }
}

// Editing a workflow's inputs by "NODE.INPUT" references, as the CLI's --set/--upload/--mask do.
import { isJsonObject, parseJsonExact, type JsonValue } from '@shared/json';
import type { Workflow } from '@main/service/types';

export interface InputRef {
  nodeId: string;
  input: string;
}

export class WorkflowEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkflowEditError';
  }
}

/** "3.seed" -> {nodeId:"3", input:"seed"}. Node ids may contain ':' (subgraphs) but not '.'. */
export function parseInputRef(text: string): InputRef {
  const dot = text.indexOf('.');
  if (dot <= 0 || dot === text.length - 1) {
    throw new WorkflowEditError(`"${text}" is not a NODE.INPUT reference (for example 3.seed).`);
  }
  return { nodeId: text.slice(0, dot), input: text.slice(dot + 1) };
}

/** Splits "NODE.INPUT=VALUE" at the first '='. */
export function parseAssignment(text: string): { ref: InputRef; value: string } {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new WorkflowEditError(`"${text}" is not NODE.INPUT=VALUE.`);
  return { ref: parseInputRef(text.slice(0, eq)), value: text.slice(eq + 1) };
}

/** VALUE as JSON when it parses as JSON (numbers exact beyond 2^53), otherwise the plain string. */
export function parseCliValue(text: string): JsonValue {
  try {
    return parseJsonExact(text);
  } catch {
    return text;
  }
}

/** Names that reach an object's prototype when used as a key: never a node id or input name. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function setInput(workflow: Workflow, ref: InputRef, value: JsonValue): void {
  // Own properties only: `workflow["__proto__"]` is Object.prototype, and writing through it
  // would change every object of the process.
  if (PROTOTYPE_KEYS.has(ref.nodeId) || PROTOTYPE_KEYS.has(ref.input)) {
    throw new WorkflowEditError(
      `"${ref.nodeId}.${ref.input}" cannot name a node input ("${PROTOTYPE_KEYS.has(ref.nodeId) ? ref.nodeId : ref.input}" is a reserved name).`,
    );
  }
  const node = Object.hasOwn(workflow, ref.nodeId) ? workflow[ref.nodeId] : undefined;
  if (!isJsonObject(node)) {
    const ids = Object.keys(workflow).join(', ');
    throw new WorkflowEditError(`The workflow has no node "${ref.nodeId}" (its nodes are: ${ids}).`);
  }
  if (!Object.hasOwn(node, 'inputs') || !isJsonObject(node.inputs)) node.inputs = {};
  (node.inputs as Record<string, JsonValue>)[ref.input] = value;
}

/**
 * Why `ref` cannot be set on this server: its node's class has no such input. Null when the
 * input exists, or when the class is not in the definitions (the server then names the class).
 */
export function unknownInputProblem(
  workflow: Workflow,
  ref: InputRef,
  definitions: ReadonlyMap<string, { inputs: ReadonlyArray<{ name: string }> }>,
): string | null {
  const node = Object.hasOwn(workflow, ref.nodeId) ? workflow[ref.nodeId] : undefined;
  if (!isJsonObject(node) || typeof node.class_type !== 'string') return null;
  const definition = definitions.get(node.class_type);
  if (!definition || definition.inputs.some((i) => i.name === ref.input)) return null;
  const names = definition.inputs.map((i) => i.name);
  return `Node ${ref.nodeId} (${node.class_type}) has no input "${ref.input}". Its inputs are: ${names.length > 0 ? names.join(', ') : '(none)'}.`;
}

/** A deep copy that keeps bigint values (structuredClone does too, but this states the intent). */
export function cloneWorkflow(workflow: Workflow): Workflow {
  return structuredClone(workflow);
}

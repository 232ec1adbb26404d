// Editing a workflow's inputs by "NODE.INPUT" references, as the CLI's --set/--upload/--mask do.
import { isJsonObject, parseJsonExact, type JsonValue } from '../../shared/json';
import type { Workflow } from '../service/types';

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

export function setInput(workflow: Workflow, ref: InputRef, value: JsonValue): void {
  const node = workflow[ref.nodeId];
  if (!isJsonObject(node)) {
    const ids = Object.keys(workflow).join(', ');
    throw new WorkflowEditError(`The workflow has no node "${ref.nodeId}" (its nodes are: ${ids}).`);
  }
  if (!isJsonObject(node.inputs)) node.inputs = {};
  (node.inputs as Record<string, JsonValue>)[ref.input] = value;
}

/** A deep copy that keeps bigint values (structuredClone does too, but this states the intent). */
export function cloneWorkflow(workflow: Workflow): Workflow {
  return structuredClone(workflow);
}

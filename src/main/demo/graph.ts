// The execution plan of a validated workflow: which nodes run (the outputs to execute and their
// ancestors) and in which order (every node after the nodes it takes links from).
import { isJsonObject, type JsonObject, type JsonValue } from '@shared/json';

export interface Link {
  node: string;
  slot: number;
}

/** A link is `["<node id>", <output index>]`. */
export function asLink(value: JsonValue | undefined): Link | null {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [node, slot] = value;
  if (typeof node !== 'string' || typeof slot !== 'number' || !Number.isInteger(slot)) return null;
  return { node, slot };
}

export function nodeInputs(prompt: JsonObject, nodeId: string): JsonObject {
  const entry = prompt[nodeId];
  const inputs = isJsonObject(entry) ? entry.inputs : undefined;
  return isJsonObject(inputs) ? inputs : {};
}

export function classTypeOf(prompt: JsonObject, nodeId: string): string {
  const entry = prompt[nodeId];
  return isJsonObject(entry) && typeof entry.class_type === 'string' ? entry.class_type : '';
}

export class CycleError extends Error {
  constructor(nodeId: string) {
    super(`Dependency cycle detected at node ${nodeId}`);
    this.name = 'CycleError';
  }
}

/** Nodes to run, each after its inputs: depth-first from each output in turn. */
export function executionOrder(prompt: JsonObject, outputs: readonly string[]): string[] {
  const order: string[] = [];
  const done = new Set<string>();
  const visiting = new Set<string>();
  const visit = (id: string): void => {
    if (done.has(id)) return;
    if (visiting.has(id)) throw new CycleError(id);
    visiting.add(id);
    for (const value of Object.values(nodeInputs(prompt, id))) {
      const link = asLink(value);
      if (link && Object.hasOwn(prompt, link.node)) visit(link.node);
    }
    visiting.delete(id);
    done.add(id);
    order.push(id);
  };
  for (const output of outputs) visit(output);
  return order;
}

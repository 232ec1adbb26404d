// The server cannot run a prompt whose links form a cycle; say which node is in it. Kahn's
// algorithm (iterative), so a 100,000-node chain is no deeper than a short one.
import { isJsonObject } from '@shared/json';
import type { Workflow } from '@main/service/types';
import { UiConversionError } from './errors';

function linkedIds(inputs: unknown): string[] {
  if (!isJsonObject(inputs)) return [];
  const ids: string[] = [];
  for (const value of Object.values(inputs)) {
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number') ids.push(value[0]);
  }
  return ids;
}

export function assertAcyclic(prompt: Workflow): void {
  const pending = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const [id, node] of Object.entries(prompt)) {
    const from = isJsonObject(node) ? linkedIds(node.inputs).filter((source) => source in prompt) : [];
    pending.set(id, from.length);
    for (const source of from) {
      const list = dependents.get(source);
      if (list) list.push(id);
      else dependents.set(source, [id]);
    }
  }
  const ready = [...pending].filter(([, count]) => count === 0).map(([id]) => id);
  let done = 0;
  while (ready.length > 0) {
    const id = ready.pop()!;
    done += 1;
    for (const next of dependents.get(id) ?? []) {
      const left = pending.get(next)! - 1;
      pending.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  if (done === pending.size) return;
  // Walk back from any node left over through left-over sources until one repeats: that one is on the cycle.
  const stuck = new Set([...pending].filter(([, count]) => count > 0).map(([id]) => id));
  let at = stuck.values().next().value as string;
  const seen = new Set<string>();
  while (!seen.has(at)) {
    seen.add(at);
    const node = prompt[at];
    at = (isJsonObject(node) ? linkedIds(node.inputs) : []).find((source) => stuck.has(source)) ?? at;
  }
  const node = prompt[at];
  const type = isJsonObject(node) && typeof node.class_type === 'string' ? ` (${node.class_type})` : '';
  throw new UiConversionError(`The workflow's links form a cycle: node ${at}${type} depends on its own output.`, [], at);
}

// Reading a workflow file: API format is accepted; a UI-format export (the editor's graph with
// `nodes` and `links`) is recognised and explained; anything else gets a specific reason.
import { isJsonObject, type JsonObject } from '@shared/json';
import type { Workflow } from '@main/service/types';

export type ParsedWorkflow =
  { ok: true; workflow: Workflow; nodeCount: number } | { ok: false; reason: 'invalid_json' | 'ui_format' | 'not_a_workflow'; message: string };

export const UI_FORMAT_EXPLANATION =
  'This file is a UI-format export (the editor graph with "nodes" and "links"), not the API format the server runs. ' +
  'In the editor, enable the developer options in the settings and use "Export (API)" (or "Save (API Format)"), then open that file.';

export function interpretWorkflow(value: unknown): ParsedWorkflow {
  if (!isJsonObject(value)) {
    return { ok: false, reason: 'not_a_workflow', message: 'The workflow must be a JSON object keyed by node id.' };
  }
  if (Array.isArray(value.nodes) && Array.isArray(value.links)) {
    return { ok: false, reason: 'ui_format', message: UI_FORMAT_EXPLANATION };
  }
  // Some tools wrap the API workflow as {"prompt": {...}}: accept that too.
  const candidate = isJsonObject(value.prompt) && !('class_type' in value) ? value.prompt : value;
  const ids = Object.keys(candidate);
  if (ids.length === 0) return { ok: false, reason: 'not_a_workflow', message: 'The workflow has no nodes.' };
  for (const id of ids) {
    const node = candidate[id];
    if (!isJsonObject(node)) {
      return { ok: false, reason: 'not_a_workflow', message: `Node "${id}" is not an object with "class_type" and "inputs".` };
    }
    if (typeof node.class_type !== 'string' || node.class_type === '') {
      return { ok: false, reason: 'not_a_workflow', message: `Node "${id}" has no "class_type".` };
    }
    if (node.inputs !== undefined && !isJsonObject(node.inputs)) {
      return { ok: false, reason: 'not_a_workflow', message: `Node "${id}" (${node.class_type}) has "inputs" that is not an object.` };
    }
  }
  return { ok: true, workflow: candidate as JsonObject, nodeCount: ids.length };
}

/** A link in API format is ["<source node id>", <output index>]. */
export function isLink(value: unknown): value is [string, number] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number';
}

/** Class names used by the workflow that the server does not define. */
export function unknownClasses(workflow: Workflow, known: { has(name: string): boolean }): { nodeId: string; classType: string }[] {
  const out: { nodeId: string; classType: string }[] = [];
  for (const [nodeId, node] of Object.entries(workflow)) {
    if (isJsonObject(node) && typeof node.class_type === 'string' && !known.has(node.class_type)) {
      out.push({ nodeId, classType: node.class_type });
    }
  }
  return out;
}

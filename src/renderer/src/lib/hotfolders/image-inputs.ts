// The inputs of a workflow a hot folder can feed its files into: inputs whose node definition takes
// an uploaded image (imageUpload), and LoadImage's `image` even when the definitions are not loaded
// (the server may be unreachable while the folder is being set up). Pure data, tested without a DOM.
import type { NodeClassView } from '@shared/ipc/contract';
import { isJsonObject, parseJsonExact, type JsonObject } from '@shared/json';

export interface ImageInputChoice {
  /** NODE.INPUT, as hotFolders.save's `bind` wants it. */
  bind: string;
  nodeId: string;
  classType: string;
  input: string;
  /** "node id · class · input", what the chooser shows. */
  label: string;
}

/** Numeric node ids numerically, then the rest by text (the order the Run form uses). */
function compareNodeIds(a: string, b: string): number {
  const numeric = (id: string): number => (/^\d+$/.test(id) ? Number(id) : Number.NaN);
  const na = numeric(a);
  const nb = numeric(b);
  if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  if (!Number.isNaN(na)) return -1;
  if (!Number.isNaN(nb)) return 1;
  return a.localeCompare(b);
}

function imageInputNames(classType: string, classes: Readonly<Record<string, NodeClassView>> | null): string[] {
  const names = new Set<string>();
  for (const input of classes?.[classType]?.inputs ?? []) if (input.imageUpload === true) names.add(input.name);
  if (classType === 'LoadImage') names.add('image');
  return [...names];
}

/** The workflow as an object, from its exact JSON text; null when it is not a JSON object. */
export function parseWorkflowObject(workflowJson: string): JsonObject | null {
  try {
    const value = parseJsonExact(workflowJson);
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

export function imageInputsOf(workflow: JsonObject, classes: Readonly<Record<string, NodeClassView>> | null): ImageInputChoice[] {
  const choices: ImageInputChoice[] = [];
  for (const nodeId of Object.keys(workflow).sort(compareNodeIds)) {
    const node = workflow[nodeId];
    if (!isJsonObject(node) || typeof node.class_type !== 'string') continue;
    const classType = node.class_type;
    for (const input of imageInputNames(classType, classes)) {
      choices.push({ bind: `${nodeId}.${input}`, nodeId, classType, input, label: `${nodeId} · ${classType} · ${input}` });
    }
  }
  return choices;
}

/** The bind to preselect: the current one when the workflow still has it, else the only choice. */
export function preferredBind(choices: readonly ImageInputChoice[], current: string): string {
  if (choices.some((c) => c.bind === current)) return current;
  return choices.length === 1 ? choices[0]!.bind : '';
}

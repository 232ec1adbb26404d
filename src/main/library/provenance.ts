// What a workflow tells about its outputs: the class of the node that saved a file, the literal
// input values of the run (what a person would want to see again, or reuse), and the prompt text
// among them. A link (["<node id>", <output index>]) is wiring, not a value, so it is left out.
import { isJsonObject, type JsonObject, type JsonValue } from '@shared/json';
import type { Workflow } from '@main/service/types';

/** Input names taken for prompt text (CLIPTextEncode "text", samplers' "prompt", "negative_prompt", ...). */
const PROMPT_NAME = /prompt|text/i;
/** Keeps the search index and the stored row reasonable when a workflow inlines a huge value. */
const MAX_VALUE_CHARS = 4000;

export interface Provenance {
  inputs: Record<string, Record<string, JsonValue>>;
  promptText: string;
  /** Every other literal input as "name value" words, for full-text search. */
  inputText: string;
}

function isLink(value: JsonValue): boolean {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && (typeof value[1] === 'number' || typeof value[1] === 'bigint');
}

/** One collator for every sort: localeCompare with options builds a new one per comparison. */
const nodeIdOrder = new Intl.Collator('en', { numeric: true });

/** Node ids in a stable, human order ("2" before "10"). */
function sortedNodeIds(workflow: Workflow): string[] {
  return Object.keys(workflow).sort(nodeIdOrder.compare);
}

export function nodeClassOf(workflow: Workflow | null | undefined, nodeId: string): string | null {
  if (!workflow) return null;
  const node = workflow[nodeId];
  return isJsonObject(node) && typeof node.class_type === 'string' ? node.class_type : null;
}

function scalarText(value: JsonValue): string | null {
  if (typeof value === 'string') return value.slice(0, MAX_VALUE_CHARS);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return null;
}

export function provenanceOf(workflow: Workflow | null | undefined): Provenance {
  const inputs: Record<string, Record<string, JsonValue>> = {};
  const prompts: string[] = [];
  const words: string[] = [];
  if (!workflow) return { inputs, promptText: '', inputText: '' };
  for (const nodeId of sortedNodeIds(workflow)) {
    const node = workflow[nodeId];
    if (!isJsonObject(node) || !isJsonObject(node.inputs)) continue;
    const literal: JsonObject = {};
    for (const [name, value] of Object.entries(node.inputs)) {
      if (isLink(value)) continue;
      literal[name] = value;
      if (typeof value === 'string' && PROMPT_NAME.test(name)) {
        const text = value.trim().slice(0, MAX_VALUE_CHARS);
        if (text !== '' && !prompts.includes(text)) prompts.push(text);
        continue;
      }
      const text = scalarText(value);
      if (text !== null && text !== '') words.push(`${name} ${text}`);
    }
    if (Object.keys(literal).length > 0) inputs[nodeId] = literal;
  }
  return { inputs, promptText: prompts.join('\n'), inputText: words.join('\n') };
}

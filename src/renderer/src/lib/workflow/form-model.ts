// The form generated from a workflow and the server's node definitions: one group per node, one
// field per input, in the definition's order. Inputs no definition describes (a serverless
// deployment has no definitions at all, or a node the server does not list) are edited from the
// workflow's own values and types (input-spec.ts inferredSpecOf); a link stays a link. Pure data,
// so it is tested without a DOM.
import type { NodeClassView } from '@shared/ipc/contract';
import { isJsonObject, type JsonObject, type JsonValue } from '@shared/json';
import { fieldSpecOf, inferredSpecOf, type FieldSpec } from './input-spec';

export type FieldSource = { kind: 'link'; from: string; output: number } | { kind: 'value'; value: JsonValue } | { kind: 'absent' };

export interface FormField {
  nodeId: string;
  name: string;
  /**
   * The definition's widget; for an input no definition mentions, the one its own value implies
   * (`inferred`); null when neither says (an object or a list, kept as it is).
   */
  spec: FieldSpec | null;
  /** True when `spec` comes from the workflow's value, not from a node definition. */
  inferred?: boolean;
  source: FieldSource;
  /** What the node definition says the input does (its "?"), when it says. */
  tooltip?: string | null;
}

export interface NodeGroup {
  id: string;
  classType: string;
  /** The definition's display name, else the class name. */
  displayName: string;
  /** The node's own title in the workflow (`_meta.title`), when it has one. */
  title?: string | null;
  /** False when the server's definitions are loaded and have no such class (reported before submitting). */
  known: boolean;
  fields: FormField[];
}

/** A link in API format is ["<source node id>", <output index>]. */
function asLink(value: unknown): { from: string; output: number } | null {
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number') {
    return { from: value[0], output: value[1] };
  }
  return null;
}

/** Node ids in a natural order: numeric ids numerically, then the rest by text. */
function compareNodeIds(a: string, b: string): number {
  const na = /^\d+$/.test(a) ? Number(a) : NaN;
  const nb = /^\d+$/.test(b) ? Number(b) : NaN;
  if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  if (!Number.isNaN(na)) return -1;
  if (!Number.isNaN(nb)) return 1;
  return a.localeCompare(b);
}

function sourceOf(inputs: JsonObject, name: string): FieldSource {
  if (!(name in inputs)) return { kind: 'absent' };
  const value = inputs[name] as JsonValue;
  const link = asLink(value);
  return link ? { kind: 'link', ...link } : { kind: 'value', value };
}

/** `classes` null: the definitions are not (yet) available, so fields follow the file's own values. */
export function buildForm(workflow: JsonObject, classes: Readonly<Record<string, NodeClassView>> | null): NodeGroup[] {
  const groups: NodeGroup[] = [];
  for (const id of Object.keys(workflow).sort(compareNodeIds)) {
    const node = workflow[id];
    if (!isJsonObject(node)) continue;
    const classType = typeof node.class_type === 'string' ? node.class_type : '';
    const inputs = isJsonObject(node.inputs) ? node.inputs : {};
    const definition = classes && Object.hasOwn(classes, classType) ? (classes[classType] ?? null) : null;
    const fields: FormField[] = [];
    const seen = new Set<string>();
    for (const input of definition?.inputs ?? []) {
      const source = sourceOf(inputs, input.name);
      const spec = fieldSpecOf(input);
      // An unconnected optional connection input is noise in a form: leave it out.
      if (spec.kind === 'connection' && source.kind === 'absent') continue;
      seen.add(input.name);
      fields.push({ nodeId: id, name: input.name, spec, source, tooltip: input.tooltip ?? null });
    }
    for (const name of Object.keys(inputs)) {
      if (seen.has(name)) continue;
      const source = sourceOf(inputs, name);
      const spec = source.kind === 'value' ? inferredSpecOf(name, source.value) : null;
      fields.push({ nodeId: id, name, spec, source, ...(spec ? { inferred: true } : {}) });
    }
    const meta = (node._meta ?? null) as JsonValue;
    const title = isJsonObject(meta) && typeof meta.title === 'string' ? meta.title : null;
    const displayName = definition && definition.displayName !== '' ? definition.displayName : (title ?? classType);
    groups.push({ id, classType, displayName, title, known: classes === null || definition !== null, fields });
  }
  return groups;
}

// UI graph -> API prompt, in the editor's order of work: flatten group nodes and subgraphs, map
// each node's widget values onto its definition's inputs, resolve every link past virtual, muted
// and bypassed nodes, then refuse a prompt the server could not run (missing classes, a cycle).
import type { JsonObject } from '@shared/json';
import type { NodeDefinitions } from '@main/service/object-info';
import type { Workflow } from '@main/service/types';
import { assertAcyclic } from './cycles';
import { expandDynamicPrompt } from './dynamic-prompts';
import { explainEmptyPrompt } from './empty';
import { UiConversionError } from './errors';
import { expandGraph } from './expand';
import { MODE_BYPASS, MODE_MUTED, valueAt, type FlatNode, type ValueOrigin } from './model';
import { resolveInput, type ResolutionMemo } from './resolve';
import { assignWidgetValues, slotsFromFile, widgetSlots, type WidgetSlot } from './widgets';

/** An input whose value the editor computes when it queues, so no file holds it (a 3D scene's picture). */
export interface UnknowableInput {
  nodeId: string;
  classType: string;
  input: string;
  why: string;
  /** Required, with no default to send instead: the server will refuse the prompt without it. */
  required: boolean;
}

export interface UiConversion {
  /** {id: {class_type, inputs, _meta: {title}}} */
  prompt: Workflow;
  /** Things the editor would have done silently but a user may want to know (a Reroute chain that ends nowhere, ...). */
  warnings: string[];
  /** Inputs left out because no file can hold their value (each also named in `warnings`). */
  unknowable: UnknowableInput[];
  /** For an empty prompt: what the graph held and why none of it runs; null otherwise. */
  emptyBecause: string | null;
  /** With `trackOrigins`: where in the file each widget value of the prompt is stored, by node id and input. */
  origins: Map<string, Map<string, ValueOrigin>> | null;
}

export interface ConvertOptions {
  /** Record where each value comes from (values-that-ran.ts writes edited values back there). */
  trackOrigins?: boolean;
}

function runs(node: FlatNode): boolean {
  return node.kind === 'normal' && node.mode !== MODE_MUTED && node.mode !== MODE_BYPASS;
}

function missingClassesError(missing: Map<string, string[]>): UiConversionError {
  const classes = [...missing.keys()].sort();
  const listed = classes.map(
    (c) => `${c} (node${missing.get(c)!.length === 1 ? '' : 's'} ${missing.get(c)!.slice(0, 5).join(', ')}${missing.get(c)!.length > 5 ? ', ...' : ''})`,
  );
  const firstNode = missing.get(classes[0]!)![0]!;
  return new UiConversionError(
    `The server does not have ${classes.length === 1 ? 'this node class' : `these ${classes.length} node classes`}, and the file does not name their widgets: ${listed.join('; ')}. ` +
      'Install the custom nodes that provide them on the server, or convert against a server that has them.',
    classes,
    firstNode,
  );
}

export function convertUiWorkflow(graph: JsonObject, definitions: NodeDefinitions, options: ConvertOptions = {}): UiConversion {
  const flat = expandGraph(graph, definitions);
  const { nodes, order } = flat;
  const warnings: string[] = [];

  const slotsOf = new Map<string, WidgetSlot[]>();
  const missing = new Map<string, string[]>();
  for (const id of order) {
    const node = nodes.get(id)!;
    if (!runs(node)) continue;
    const definition = definitions.get(node.type);
    const slots = definition ? widgetSlots(definition, node.inputs) : slotsFromFile(node.inputs, node.widgetsValues);
    if (slots) slotsOf.set(id, slots);
    else missing.set(node.type, [...(missing.get(node.type) ?? []), id]);
  }
  if (missing.size > 0) throw missingClassesError(missing);

  const prompt: Workflow = {};
  const unknowable: UnknowableInput[] = [];
  const origins = options.trackOrigins ? new Map<string, Map<string, ValueOrigin>>() : null;
  const memo: ResolutionMemo = new Map();
  for (const id of order) {
    const node = nodes.get(id)!;
    const slots = slotsOf.get(id);
    if (!slots) continue;
    const inputs: JsonObject = {};
    const from = origins ? new Map<string, ValueOrigin>() : null;
    if (from) origins?.set(id, from);
    const note = from ? (name: string, origin: ValueOrigin): void => void from.set(name, origin) : undefined;
    assignWidgetValues(slots, node.widgetsValues, inputs, { origin: note });
    if (node.widgetOverrides) {
      for (const slot of slots) {
        const origin = slot.role === 'value' ? node.widgetOverrides.get(slot.name) : undefined;
        const value = origin ? valueAt(origin) : undefined;
        if (origin === undefined || value === undefined) continue;
        inputs[slot.name] = value;
        note?.(slot.name, origin);
      }
    }
    for (const input of node.inputs) {
      if (!input.source) continue;
      const resolved = resolveInput(nodes, node, input, definitions, memo);
      switch (resolved.kind) {
        case 'link':
          inputs[input.name] = [resolved.nodeId, resolved.slot];
          from?.delete(input.name);
          break;
        case 'value':
          inputs[input.widgetName ?? input.name] = resolved.value;
          if (resolved.origin) note?.(input.widgetName ?? input.name, resolved.origin);
          break;
        case 'removed':
          delete inputs[input.name];
          from?.delete(input.name);
          break;
        case 'none':
          if (resolved.danglingReroute !== null) {
            warnings.push(
              `Node ${id} (${node.type}): input "${input.name}" comes through Reroute ${resolved.danglingReroute}, which has no input; it is left unconnected.`,
            );
          }
          break;
      }
    }
    for (const slot of slots) {
      if (slot.role !== 'computed' || inputs[slot.name] !== undefined) continue;
      // Never guessed: its default when it has one, else left out; said either way.
      const fallback = slot.spec?.config.default;
      const required = slot.spec?.section === 'required' && fallback === undefined;
      const why = slot.why ?? 'the editor computes it when it queues';
      if (fallback !== undefined) inputs[slot.name] = fallback;
      unknowable.push({ nodeId: id, classType: node.type, input: slot.name, why, required });
      const outcome =
        fallback !== undefined
          ? 'its default is sent instead'
          : required
            ? 'it is required, so the server will refuse the prompt without it'
            : 'it is left out';
      warnings.push(`Node ${id} (${node.type}): input "${slot.name}" cannot be converted: ${why}; ${outcome}.`);
    }
    const definition = definitions.get(node.type);
    for (const spec of definition?.inputs ?? []) {
      const value = inputs[spec.name];
      if (spec.kind === 'string' && spec.config.dynamicPrompts === true && typeof value === 'string') inputs[spec.name] = expandDynamicPrompt(value);
    }
    const title = node.title ?? definition?.displayName ?? node.type;
    prompt[id] = { inputs, class_type: node.type, _meta: { title } };
  }
  assertAcyclic(prompt);
  const emptyBecause = Object.keys(prompt).length > 0 ? null : explainEmptyPrompt(graph, flat);
  return { prompt, warnings, unknowable, emptyBecause, origins };
}

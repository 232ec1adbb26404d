// The editor graph kept with a run's outputs must show the values that ran, not the file's
// originals: when a run starts from an editor graph and its values were edited in the form, each
// edited value is written back where the editor reads it (the node's widgets_values entry, a subgraph
// instance's promoted widget, a PrimitiveNode's value). Found by converting a copy of the graph and
// noting where each value of the prompt came from; the copy is what gets sent.
import { isJsonObject, stringifyJsonExact, type JsonObject, type JsonValue } from '@shared/json';
import type { NodeDefinitions } from '@main/service/object-info';
import type { Workflow } from '@main/service/types';
import { convertUiWorkflow } from './convert-ui';
import { isLink } from './parse';

export interface GraphThatRan {
  /** A copy of the graph with the values that ran in place. */
  graph: JsonObject;
  /** `node.input` of edited values the graph has no place for (a value the file never stored). */
  unplaced: string[];
}

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  // Most values are numbers and strings: compared as they are, lists and objects by their exact text.
  if (a === undefined || b === undefined || typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  return stringifyJsonExact(a) === stringifyJsonExact(b);
}

/**
 * The graph with the prompt's values written back. Throws what the conversion throws (the graph no
 * longer converts with these definitions); the caller then keeps no graph rather than a wrong one.
 */
export function graphWithValuesThatRan(graph: JsonObject, ran: Workflow, definitions: NodeDefinitions): GraphThatRan {
  const copy = structuredClone(graph);
  const { prompt, origins } = convertUiWorkflow(copy, definitions, { trackOrigins: true });
  const unplaced: string[] = [];
  for (const [id, node] of Object.entries(ran)) {
    const converted = prompt[id];
    if (!isJsonObject(node) || !isJsonObject(node.inputs) || !isJsonObject(converted) || !isJsonObject(converted.inputs)) continue;
    if (converted.class_type !== node.class_type) continue;
    const from = origins?.get(id);
    for (const [name, value] of Object.entries(node.inputs)) {
      if (isLink(value) || same(value, converted.inputs[name])) continue;
      const origin = from?.get(name);
      if (!origin) {
        unplaced.push(`${id}.${name}`);
        continue;
      }
      if (Array.isArray(origin.holder)) origin.holder[origin.key as number] = value;
      else origin.holder[origin.key as string] = value;
    }
  }
  return { graph: copy, unplaced };
}

/**
 * The graph to send with a run (app and CLI alike): the editor graph with the values that ran, or
 * null (with a warning) when it cannot be brought in line with them. A graph that shows values other
 * than those that ran would be worse than none: "Open in editor" would show a run that never was.
 */
export async function editorGraphForRun(
  graph: JsonObject | null,
  ran: Workflow,
  definitions: () => Promise<NodeDefinitions>,
  warn: (message: string) => void,
): Promise<JsonObject | null> {
  if (graph === null) return null;
  let result: GraphThatRan;
  try {
    result = graphWithValuesThatRan(graph, ran, await definitions());
  } catch (error) {
    warn(
      `The editor graph is not sent with this run: the values that ran could not be written into it (${error instanceof Error ? error.message : String(error)}).`,
    );
    return null;
  }
  if (result.unplaced.length > 0) warn(`The editor graph sent with this run has no place for ${result.unplaced.join(', ')}; it shows the file's value there.`);
  return result.graph;
}

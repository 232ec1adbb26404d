// Builds a node's object_info entry from its shape, with the keys and key order the real server
// uses (traces/object_info.json): input, input_order, output, output_is_list, output_name, name,
// display_name, description, python_module, category, output_node, and api_node on partner nodes.
import type { JsonObject } from '@shared/json';
import { readInputs, type InputSpecs, type InputValues } from './input-specs';

export interface OutputSpec {
  type: string;
  name?: string;
}

export interface NodeShape<R extends InputSpecs, O extends InputSpecs> {
  name: string;
  displayName: string;
  description: string;
  category: string;
  pythonModule: string;
  required: R;
  optional: O;
  /** Hidden inputs the server fills itself, e.g. { prompt: 'PROMPT' }. */
  hidden?: Record<string, string>;
  outputs: readonly OutputSpec[];
  outputNode: boolean;
  apiNode?: boolean;
}

function specsJson(specs: InputSpecs): JsonObject {
  const out: JsonObject = {};
  for (const [name, spec] of Object.entries(specs)) out[name] = spec.json();
  return out;
}

export function buildDefinition<R extends InputSpecs, O extends InputSpecs>(shape: NodeShape<R, O>): JsonObject {
  const input: JsonObject = { required: specsJson(shape.required) };
  const order: JsonObject = { required: Object.keys(shape.required) };
  if (Object.keys(shape.optional).length > 0) {
    input.optional = specsJson(shape.optional);
    order.optional = Object.keys(shape.optional);
  }
  if (shape.hidden && Object.keys(shape.hidden).length > 0) {
    input.hidden = { ...shape.hidden };
    order.hidden = Object.keys(shape.hidden);
  }
  const definition: JsonObject = {
    input,
    input_order: order,
    output: shape.outputs.map((o) => o.type),
    output_is_list: shape.outputs.map(() => false),
    output_name: shape.outputs.map((o) => o.name ?? o.type),
    name: shape.name,
    display_name: shape.displayName,
    description: shape.description,
    python_module: shape.pythonModule,
    category: shape.category,
    output_node: shape.outputNode,
  };
  if (shape.apiNode) definition.api_node = true;
  return definition;
}

/** Reads required and optional inputs of a node, typed by its shape. */
export function readNodeInputs<R extends InputSpecs, O extends InputSpecs>(
  shape: NodeShape<R, O>,
  inputs: Record<string, unknown>,
): InputValues<R> & InputValues<O> {
  return { ...readInputs(shape.name, shape.required, inputs), ...readInputs(shape.name, shape.optional, inputs) };
}

/** python_module of the demo's own nodes (the real server names custom nodes this way). */
export const DEMO_MODULE = 'custom_nodes.flowdeck_demo';

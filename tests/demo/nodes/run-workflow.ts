// A minimal executor for the tests: checks links against the definitions and runs a workflow's
// nodes in dependency order with a fake context. (The demo server has its own, full executor.)
import type { JsonObject, JsonValue } from '@shared/json';
import { isJsonObject } from '@shared/json';
import type { DemoNode, NodeResult, NodeValue } from '@main/demo/node-api';
import type { FakeContext } from './fake-context';

function inputType(def: JsonObject, name: string): JsonValue | undefined {
  const input = def.input as JsonObject;
  for (const part of ['required', 'optional']) {
    const section = input[part];
    if (isJsonObject(section) && Array.isArray(section[name])) return (section[name] as JsonValue[])[0];
  }
  return undefined;
}

export async function runWorkflow(
  library: Map<string, DemoNode>,
  workflow: JsonObject,
  ctx: FakeContext,
  inputExists: (name: string) => boolean,
): Promise<Map<string, NodeResult>> {
  const results = new Map<string, NodeResult>();
  const visiting = new Set<string>();
  async function run(id: string): Promise<NodeResult> {
    const done = results.get(id);
    if (done) return done;
    if (visiting.has(id)) throw new Error(`cycle at node ${id}`);
    visiting.add(id);
    const entry = workflow[id];
    if (!isJsonObject(entry) || typeof entry.class_type !== 'string') throw new Error(`node ${id} is malformed`);
    const node = library.get(entry.class_type);
    if (!node) throw new Error(`node ${id}: unknown class ${entry.class_type}`);
    const inputs: Record<string, NodeValue> = {};
    for (const [name, value] of Object.entries((entry.inputs ?? {}) as JsonObject)) {
      const expected = inputType(node.definition, name);
      if (expected === undefined) throw new Error(`node ${id} (${entry.class_type}): unknown input ${name}`);
      if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number') {
        const source = workflow[value[0]];
        if (!isJsonObject(source)) throw new Error(`node ${id}: link to missing node ${value[0]}`);
        const upstream = await run(value[0]);
        const sourceDef = library.get(source.class_type as string)!.definition;
        const produced = (sourceDef.output as JsonValue[])[value[1]];
        if (produced !== expected) throw new Error(`node ${id} input ${name}: got ${String(produced)}, wants ${String(expected)}`);
        inputs[name] = upstream.outputs[value[1]] as NodeValue;
      } else {
        inputs[name] = value as NodeValue;
      }
    }
    const reason = node.validate?.(inputs, { inputExists });
    if (reason) throw new Error(`node ${id} (${entry.class_type}) failed validation: ${reason}`);
    const result = await node.run(Object.assign(Object.create(ctx) as FakeContext, { nodeId: id }), inputs);
    results.set(id, result);
    visiting.delete(id);
    return result;
  }
  for (const [id, entry] of Object.entries(workflow)) {
    if (isJsonObject(entry) && library.get(entry.class_type as string)?.definition.output_node === true) await run(id);
  }
  return results;
}

// Following an input's link back to the node that really produces its value, past what the server
// never sees: Reroutes and expanded instances pass it through, a PrimitiveNode supplies its value,
// a bypassed node hands over its own input of the same type (same slot index first), and a muted
// or missing node removes the input. A loop, not recursion, bounded by the node count (so a cycle
// of pass-through nodes is an error, not a hang).
import type { JsonValue } from '../../../shared/json';
import type { NodeDefinitions } from '../../service/object-info';
import { UiConversionError } from './errors';
import { MODE_BYPASS, MODE_MUTED, type FlatInput, type FlatNode, type InputSource } from './model';

export type Resolution =
  | { kind: 'link'; nodeId: string; slot: number }
  | { kind: 'value'; value: JsonValue }
  /** No producer: the input keeps its widget value, if it has one. */
  | { kind: 'none'; danglingReroute: string | null }
  /** The producer was removed (muted, deleted): the input is left out altogether. */
  | { kind: 'removed' };

function bypassInput(node: FlatNode, slot: number, type: string): FlatInput | null {
  const same = node.inputs[slot];
  if (same && same.type === type) return same;
  return node.inputs.find((input) => input.type === type) ?? null;
}

function checkSlot(origin: FlatNode, slot: number, target: FlatNode, input: FlatInput, definitions: NodeDefinitions): void {
  // The file's own output list, or the definition's, whichever is longer (custom nodes add outputs).
  const known = Math.max(origin.outputCount, definitions.get(origin.type)?.outputs.length ?? -1);
  if (known >= 0 && slot >= known) {
    throw new UiConversionError(
      `Node ${target.id} (${target.type}): input "${input.name}" is linked to output ${slot} of node ${origin.id} (${origin.type}), which has only ${known} output${known === 1 ? '' : 's'}.`,
      [],
      target.id,
    );
  }
}

export function resolveInput(nodes: Map<string, FlatNode>, target: FlatNode, input: FlatInput, definitions: NodeDefinitions): Resolution {
  let source: InputSource | null = input.source;
  let viaBypass = false;
  let lastReroute: string | null = null;
  const limit = nodes.size + 2;
  for (let steps = 0; ; steps += 1) {
    if (source === null) return { kind: 'none', danglingReroute: lastReroute };
    if (source.kind === 'value') return { kind: 'value', value: source.value };
    if (steps > limit) {
      throw new UiConversionError(`Node ${target.id} (${target.type}): the link into input "${input.name}" goes round in a cycle (through node ${source.nodeId}).`, [], target.id);
    }
    const origin = nodes.get(source.nodeId);
    if (!origin) return { kind: 'removed' };
    switch (origin.kind) {
      case 'note':
        return { kind: 'removed' };
      case 'primitive': {
        // The editor writes a primitive's value into the widgets it feeds directly or through Reroutes.
        const stored = origin.widgetsValues;
        const value = Array.isArray(stored) ? stored[0] : undefined;
        return viaBypass || value === undefined ? { kind: 'none', danglingReroute: null } : { kind: 'value', value };
      }
      case 'reroute':
        lastReroute = origin.id;
        source = origin.inputs[0]?.source ?? null;
        continue;
      case 'passthrough':
        source = origin.inputs[source.slot]?.source ?? null;
        lastReroute = null;
        continue;
      case 'normal':
        break;
    }
    if (origin.mode === MODE_MUTED) return { kind: 'removed' };
    if (origin.mode === MODE_BYPASS) {
      const through = bypassInput(origin, source.slot, input.type);
      viaBypass = true;
      lastReroute = null;
      source = through?.source ?? null;
      continue;
    }
    checkSlot(origin, source.slot, target, input, definitions);
    return { kind: 'link', nodeId: origin.id, slot: source.slot };
  }
}

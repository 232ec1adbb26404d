// Following an input's link back to the node that really produces its value, past what the server
// never sees: Reroutes and expanded instances pass it through, a PrimitiveNode supplies its value,
// a bypassed node hands over its own input of the same type (same slot index first), and a muted
// or missing node removes the input. A loop, not recursion; a point passed twice is a cycle of
// pass-through nodes, an error rather than a hang.
import type { JsonValue } from '@shared/json';
import type { NodeDefinitions } from '@main/service/object-info';
import { UiConversionError } from './errors';
import { MODE_BYPASS, MODE_MUTED, type FlatInput, type FlatNode, type InputSource, type ValueOrigin } from './model';

export type Resolution =
  | { kind: 'link'; nodeId: string; slot: number }
  | { kind: 'value'; value: JsonValue; origin?: ValueOrigin }
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

/**
 * Results of walks already done, by the point they passed (source node and slot, the wanted type,
 * and whether a bypass was crossed): what lies beyond a point does not depend on how the walk got
 * there, so many inputs fed through one long Reroute chain walk it once, not once each.
 */
export type ResolutionMemo = Map<string, Resolution>;

export function resolveInput(
  nodes: Map<string, FlatNode>,
  target: FlatNode,
  input: FlatInput,
  definitions: NodeDefinitions,
  memo: ResolutionMemo = new Map(),
): Resolution {
  const passed: string[] = [];
  const seen = new Set<string>();
  const settle = (result: Resolution): Resolution => {
    for (const key of passed) memo.set(key, result);
    return result;
  };
  let source: InputSource | null = input.source;
  let viaBypass = false;
  let lastReroute: string | null = null;
  const limit = nodes.size + 2;
  for (let steps = 0; ; steps += 1) {
    if (source === null) return settle({ kind: 'none', danglingReroute: lastReroute });
    if (source.kind === 'value') return settle(source);
    const key = `${viaBypass ? 'b' : 'd'}|${input.type}|${source.slot}|${source.nodeId}`;
    if (steps > limit || seen.has(key)) {
      throw new UiConversionError(
        `Node ${target.id} (${target.type}): the link into input "${input.name}" goes round in a cycle (through node ${source.nodeId}).`,
        [],
        target.id,
      );
    }
    const known = memo.get(key);
    if (known) return settle(known);
    seen.add(key);
    passed.push(key);
    const origin = nodes.get(source.nodeId);
    if (!origin) return settle({ kind: 'removed' });
    switch (origin.kind) {
      case 'note':
        return settle({ kind: 'removed' });
      case 'primitive': {
        // The editor writes a primitive's value into the widgets it feeds directly or through Reroutes.
        const stored = origin.widgetsValues;
        const value = Array.isArray(stored) ? stored[0] : undefined;
        return settle(
          viaBypass || value === undefined || !Array.isArray(stored)
            ? { kind: 'none', danglingReroute: null }
            : { kind: 'value', value, origin: { holder: stored, key: 0 } },
        );
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
    if (origin.mode === MODE_MUTED) return settle({ kind: 'removed' });
    if (origin.mode === MODE_BYPASS) {
      const through = bypassInput(origin, source.slot, input.type);
      viaBypass = true;
      lastReroute = null;
      source = through?.source ?? null;
      continue;
    }
    checkSlot(origin, source.slot, target, input, definitions);
    return settle({ kind: 'link', nodeId: origin.id, slot: source.slot });
  }
}

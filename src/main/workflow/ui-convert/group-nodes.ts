// Legacy group nodes (`extra.groupNodes`, used as type `workflow>NAME`, older `workflow/NAME`):
// the instance stands for its inner nodes, numbered `PARENT:INDEX`. Its sockets are the inner
// sockets that no inner link feeds, in inner-node order; its widget values are the inner widgets'
// values in the same order; its outputs are the inner outputs no inner link uses (or that the
// definition lists as external).
import { isJsonObject, type JsonObject, type JsonValue } from '@shared/json';
import type { NodeDefinitions } from '@main/service/object-info';
import { UiConversionError } from './errors';
import type { FlatInput, FlatNode } from './model';
import { readNode, type RawNode } from './read-graph';
import { assignWidgetValues, widgetSlots, type WidgetSlot } from './widgets';

export interface GroupNodeExpansion {
  /** The instance's outputs, each forwarded from an inner node's output. */
  forwards: FlatInput[];
  nodes: Omit<FlatNode, 'kind'>[];
}

export function groupNodeDefinition(groupNodes: JsonObject, type: string): JsonObject | null {
  const match = /^workflow[>/](.+)$/.exec(type);
  if (!match) return null;
  const definition = groupNodes[match[1]!];
  return isJsonObject(definition) ? definition : null;
}

interface InnerLink {
  fromIndex: string;
  fromSlot: number;
}

function indexOf(value: JsonValue | undefined): string | null {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (isJsonObject(value)) return indexOf(value.index);
  return null;
}

export function expandGroupNode(
  instance: RawNode,
  id: string,
  outer: FlatInput[],
  group: JsonObject,
  definitions: NodeDefinitions,
  where: string,
): GroupNodeExpansion {
  const label = `${where}group node ${id} (${instance.type})`;
  if (!Array.isArray(group.nodes)) throw new UiConversionError(`${label}: its definition has no node list.`, [], id);
  const inner: RawNode[] = group.nodes.map((value, position) => {
    const index = isJsonObject(value) ? indexOf(value.index) : null;
    return readNode(value, position, `${label}: `, index ?? String(position));
  });
  // Inner links: [from_index | null, from_slot, to_index, to_slot, ...]; a null origin came from outside.
  const feeds = new Map<string, InnerLink>();
  const used = new Set<string>();
  for (const link of Array.isArray(group.links) ? group.links : []) {
    if (!Array.isArray(link)) continue;
    const from = indexOf(link[0]);
    const to = indexOf(link[2]);
    const fromSlot = link[1];
    const toSlot = link[3];
    if (from === null || to === null || typeof fromSlot !== 'number' || typeof toSlot !== 'number') continue;
    feeds.set(`${to}:${toSlot}`, { fromIndex: from, fromSlot });
    used.add(`${from}:${fromSlot}`);
  }
  const external = new Set<string>();
  for (const entry of Array.isArray(group.external) ? group.external : []) {
    if (Array.isArray(entry) && typeof entry[1] === 'number') {
      const index = indexOf(entry[0]);
      if (index !== null) external.add(`${index}:${entry[1]}`);
    }
  }

  // The instance's plain sockets, in order, and its converted-widget sockets by widget name.
  const plain = outer.filter((input) => input.widgetName === null);
  const widgetSockets = outer.filter((input) => input.widgetName !== null);
  let nextPlain = 0;
  const groupValues = Array.isArray(instance.widgetsValues) ? instance.widgetsValues : [];
  let nextValue = 0;

  const nodes: Omit<FlatNode, 'kind'>[] = [];
  const forwards: FlatInput[] = [];
  for (const node of inner) {
    const innerId = `${id}:${node.id}`;
    const inputs: FlatInput[] = node.inputs.map((input, slot) => {
      const link = feeds.get(`${node.id}:${slot}`);
      if (link)
        return {
          name: input.name,
          type: input.type,
          widgetName: input.widgetName,
          source: { kind: 'link', nodeId: `${id}:${link.fromIndex}`, slot: link.fromSlot },
        };
      if (input.widgetName === null) {
        const socket = plain[nextPlain];
        nextPlain += 1;
        return { name: input.name, type: input.type, widgetName: null, source: socket?.source ?? null };
      }
      const socket = widgetSockets.find((s) => s.widgetName === input.widgetName || s.widgetName!.endsWith(` ${input.widgetName}`));
      return { name: input.name, type: input.type, widgetName: input.widgetName, source: socket?.source ?? null };
    });
    // The group's widget values, taken in this node's slot order (a control value only when one is there).
    const definition = definitions.get(node.type);
    let widgetsValues = node.widgetsValues;
    if (definition) {
      const values: JsonObject = {};
      const linkedInside = (slot: WidgetSlot): boolean =>
        slot.role === 'value' && node.inputs.some((input, s) => input.name === slot.name && feeds.has(`${node.id}:${s}`));
      nextValue = assignWidgetValues(widgetSlots(definition, node.inputs), groupValues, values, { from: nextValue, skip: linkedInside, defaults: false });
      const own = node.widgetsValues;
      widgetsValues = Array.isArray(own) || own === null ? values : { ...own, ...values };
    }
    nodes.push({
      id: innerId,
      type: node.type,
      mode: node.mode,
      title: node.title,
      inputs,
      outputCount: node.outputCount,
      widgetsValues,
      widgetOverrides: null,
    });
    for (let slot = 0; slot < Math.max(node.outputCount, 0); slot += 1) {
      const key = `${node.id}:${slot}`;
      if (used.has(key) && !external.has(key)) continue;
      forwards.push({ name: `output ${forwards.length}`, type: '*', widgetName: null, source: { kind: 'link', nodeId: innerId, slot } });
    }
  }
  return { forwards, nodes };
}

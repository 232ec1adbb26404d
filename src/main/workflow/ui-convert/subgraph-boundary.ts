// What a subgraph instance hands to the links that leave its input node (-10, slot k): the instance's
// socket for the subgraph's input k, else that input's promoted widget value. The editor builds an
// instance's sockets from the subgraph's own `inputs` list and lays the saved sockets over them by
// name, so a file whose instance lists its sockets in another order, or none at all (templates save
// `"inputs": []` with `properties.proxyWidgets` naming `["-1", input name]`), still wires each value
// to the input it belongs to. Only a definition without an `inputs` list falls back to positions.
import { isJsonObject, type JsonValue } from '@shared/json';
import { valueAt, type FlatInput, type InputSource, type ValueOrigin } from './model';
import { idKey, type RawLink, type RawNode } from './read-graph';
import { isControlValue } from './widgets';

const SUBGRAPH_INPUT_NODE = '-10';

/** One of a subgraph's declared inputs. */
export interface SubgraphSlot {
  name: string;
  type: string;
}

export function readSubgraphSlots(list: JsonValue | undefined): SubgraphSlot[] {
  if (!Array.isArray(list)) return [];
  return list.map((entry) => ({
    name: isJsonObject(entry) && typeof entry.name === 'string' ? entry.name : '',
    type: isJsonObject(entry) && typeof entry.type === 'string' ? entry.type : '*',
  }));
}

/** The subgraph's inside, as far as the boundary needs it. */
export interface SubgraphInside {
  slots: SubgraphSlot[];
  nodes: RawNode[];
  links: Map<string, RawLink>;
}

/** `properties.proxyWidgets` ([[inner node id or "-1", widget name], ...]), when the instance has it. */
function proxyList(instance: RawNode): [string, string][] | null {
  const properties = instance.raw.properties;
  const list = isJsonObject(properties) && Array.isArray(properties.proxyWidgets) ? properties.proxyWidgets : null;
  if (!list) return null;
  return list.map((entry) => (Array.isArray(entry) && entry.length >= 2 && typeof entry[1] === 'string' ? [idKey(entry[0]) ?? '', entry[1]] : ['', '']));
}

/**
 * The promoted widgets an instance lists as proxies of inner widgets ([inner node id, widget name]),
 * each with the instance's widget value at the same position: these replace the inner widgets' own
 * values. Entries "-1" name the subgraph's own inputs: the boundary serves those.
 */
export function proxyOverrides(instance: RawNode): Map<string, Map<string, ValueOrigin>> | null {
  const proxies = proxyList(instance);
  const values = instance.widgetsValues;
  if (!proxies || !Array.isArray(values)) return null;
  const overrides = new Map<string, Map<string, ValueOrigin>>();
  proxies.forEach(([target, widget], position) => {
    if (target === '' || target === '-1' || position >= values.length) return;
    const forNode = overrides.get(target) ?? new Map<string, ValueOrigin>();
    forNode.set(widget, { holder: values, key: position });
    overrides.set(target, forNode);
  });
  return overrides;
}

/** Which of the instance's saved sockets stands for each declared input (by name and type, then name). */
function matchSockets(outer: readonly FlatInput[], slots: readonly SubgraphSlot[]): (FlatInput | undefined)[] {
  if (slots.length === 0) return [...outer];
  const taken = new Set<number>();
  const take = (test: (input: FlatInput) => boolean): FlatInput | undefined => {
    const at = outer.findIndex((input, i) => !taken.has(i) && test(input));
    if (at < 0) return undefined;
    taken.add(at);
    return outer[at];
  };
  const matched = slots.map((slot) => take((input) => input.name === slot.name && input.type === slot.type));
  return slots.map((slot, k) => matched[k] ?? take((input) => input.name === slot.name));
}

/** Whether declared input k feeds an inner widget (then the instance shows it as a promoted widget). */
function feedsWidget(inside: SubgraphInside, k: number): boolean {
  for (const link of inside.links.values()) {
    if (link.originId !== SUBGRAPH_INPUT_NODE || link.originSlot !== k) continue;
    const target = inside.nodes.find((node) => node.id === link.targetId);
    if (target?.inputs[link.targetSlot]?.widgetName != null) return true;
  }
  return false;
}

/** The promoted widget values of an instance, by declared input, with where each is stored. */
function promotedValues(instance: RawNode, sockets: readonly (FlatInput | undefined)[], inside: SubgraphInside): Map<number, ValueOrigin> {
  const found = new Map<number, ValueOrigin>();
  const stored = instance.widgetsValues;
  const nameOf = (k: number): string => inside.slots[k]?.name ?? sockets[k]?.name ?? '';
  if (isJsonObject(stored)) {
    sockets.forEach((socket, k) => {
      const key = socket?.widgetName != null && stored[socket.widgetName] !== undefined ? socket.widgetName : nameOf(k);
      if (stored[key] !== undefined) found.set(k, { holder: stored, key });
    });
    return found;
  }
  if (!Array.isArray(stored)) return found;
  const proxies = proxyList(instance);
  if (proxies) {
    // Newer files: the widget values follow the proxy list; "-1" entries are the instance's own inputs.
    proxies.forEach(([target, name], position) => {
      if (target !== '-1' || position >= stored.length) return;
      const k = sockets.findIndex((_, i) => nameOf(i) === name);
      if (k >= 0) found.set(k, { holder: stored, key: position });
    });
    return found;
  }
  const widgets = sockets.map((socket, k) => k).filter((k) => (sockets[k] ? sockets[k]!.widgetName !== null : feedsWidget(inside, k)));
  // Some files keep a slot for the inner widget's "control after generate" too: skip those when the list is longer.
  const extra = stored.length > widgets.length;
  let position = 0;
  for (const k of widgets) {
    if (position >= stored.length) break;
    found.set(k, { holder: stored, key: position });
    position += 1;
    if (extra && typeof stored[position] === 'string' && isControlValue(stored[position])) position += 1;
  }
  return found;
}

/** What a link from the instance's input node, slot k, stands for. */
export function instanceBoundary(instance: RawNode, outer: readonly FlatInput[], inside: SubgraphInside): (slot: number) => InputSource | null {
  const sockets = matchSockets(outer, inside.slots);
  const promoted = promotedValues(instance, sockets, inside);
  return (slot) => {
    const source = sockets[slot]?.source;
    if (source) return source;
    const origin = promoted.get(slot);
    return origin ? { kind: 'value', value: valueAt(origin)!, origin } : null;
  };
}

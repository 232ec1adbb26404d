// Reading one graph scope of a UI-format file (the root graph, a subgraph definition or a legacy
// group-node definition) into plain records, whatever the schema: links as arrays
// `[id, origin_id, origin_slot, target_id, target_slot, type]` (schema 0.4) or as objects (schema 1).
// Malformed parts get an error that names the node; nothing here recurses.
import { isJsonObject, type JsonObject, type JsonValue } from '@shared/json';
import { UiConversionError } from './errors';

export interface RawInput {
  name: string;
  type: string;
  /** The link id this input holds, as a string key (null when unlinked). */
  linkId: string | null;
  widgetName: string | null;
}

export interface RawNode {
  /** The id inside its own scope (`5`, or `-10` for a subgraph's input node). */
  id: string;
  type: string;
  mode: number;
  title: string | null;
  inputs: RawInput[];
  /** One entry per output slot: how many links leave it (used for group-node outputs). */
  outputCount: number;
  widgetsValues: JsonValue[] | JsonObject | null;
  /** The node object as stored (group-node definitions carry `index` here). */
  raw: JsonObject;
}

export interface RawLink {
  id: string;
  originId: string;
  originSlot: number;
  targetId: string;
  targetSlot: number;
  type: string;
}

/** A node or link id as a map key: numbers and strings alike (bigint ids are kept exact). */
export function idKey(value: JsonValue | undefined): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string' && value !== '') return value;
  return null;
}

/** No real node has this many sockets; a larger slot number is a damaged file (and would make huge sparse lists). */
const MAX_SLOT = 65_535;

function slotNumber(value: JsonValue | undefined): number | null {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_SLOT) return value;
  return null;
}

function typeName(value: JsonValue | undefined): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return '*';
}

export function describeNode(where: string, id: string | null, type: string | null): string {
  return `${where}node ${id ?? '?'}${type ? ` (${type})` : ''}`;
}

function readInputs(node: JsonObject, label: string, id: string): RawInput[] {
  const list = node.inputs;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new UiConversionError(`${label}: "inputs" is not a list.`, [], id);
  return list.map((input, index) => {
    if (!isJsonObject(input)) throw new UiConversionError(`${label}: input ${index} is not an object.`, [], id);
    const widget = input.widget;
    const widgetName = isJsonObject(widget) && typeof widget.name === 'string' ? widget.name : null;
    const name = typeof input.name === 'string' ? input.name : (widgetName ?? '');
    return { name, type: typeName(input.type), linkId: idKey(input.link ?? undefined), widgetName };
  });
}

/**
 * Reads one node object; `where` prefixes messages ("subgraph X: "). `positionId` is the id a
 * group-node entry has by its place (`index`): it wins over the stored `id`, which older editors
 * saved as -1 for every inner node.
 */
export function readNode(value: JsonValue, position: number, where: string, positionId: string | null = null): RawNode {
  if (!isJsonObject(value)) throw new UiConversionError(`${where}nodes[${position}] is not an object.`, [], null);
  const id = positionId ?? idKey(value.id);
  const type = typeof value.type === 'string' && value.type !== '' ? value.type : null;
  const label = describeNode(where, id ?? `at nodes[${position}]`, type);
  if (id === null) throw new UiConversionError(`${label} has no id.`, [], null);
  if (type === null) throw new UiConversionError(`${label} has no type.`, [], id);
  const wv = value.widgets_values;
  let widgetsValues: JsonValue[] | JsonObject | null = null;
  if (Array.isArray(wv) || isJsonObject(wv)) widgetsValues = wv;
  else if (wv !== undefined && wv !== null) throw new UiConversionError(`${label}: "widgets_values" is neither a list nor an object.`, [], id);
  const outputs = value.outputs;
  if (outputs !== undefined && outputs !== null && !Array.isArray(outputs)) throw new UiConversionError(`${label}: "outputs" is not a list.`, [], id);
  return {
    id,
    type,
    mode: typeof value.mode === 'number' ? value.mode : 0,
    title: typeof value.title === 'string' ? value.title : null,
    inputs: readInputs(value, label, id),
    outputCount: Array.isArray(outputs) ? outputs.length : -1,
    widgetsValues,
    raw: value,
  };
}

export function readNodes(list: JsonValue | undefined, where: string): RawNode[] {
  if (!Array.isArray(list)) throw new UiConversionError(`${where}"nodes" is not a list.`);
  return list.map((node, position) => readNode(node, position, where));
}

function readLink(value: JsonValue, position: number, where: string): RawLink {
  let fields: (JsonValue | undefined)[];
  if (Array.isArray(value)) fields = value;
  else if (isJsonObject(value)) fields = [value.id, value.origin_id, value.origin_slot, value.target_id, value.target_slot, value.type];
  else throw new UiConversionError(`${where}links[${position}] is neither a list nor an object.`);
  const [id, originId, originSlot, targetId, targetSlot, type] = fields;
  const key = idKey(id);
  const origin = idKey(originId);
  const target = idKey(targetId);
  const os = slotNumber(originSlot);
  const ts = slotNumber(targetSlot);
  if (key === null || origin === null || target === null || os === null || ts === null) {
    throw new UiConversionError(
      `${where}links[${position}] (id ${key ?? '?'}) is malformed: it needs an id, origin and target nodes and slot numbers (0 to ${MAX_SLOT}).`,
      [],
      target,
    );
  }
  return { id: key, originId: origin, originSlot: os, targetId: target, targetSlot: ts, type: typeName(type) };
}

/** Links by id; an absent list is no links. */
export function readLinks(list: JsonValue | undefined, where: string): Map<string, RawLink> {
  const links = new Map<string, RawLink>();
  if (list === undefined || list === null) return links;
  if (!Array.isArray(list)) throw new UiConversionError(`${where}"links" is not a list.`);
  list.forEach((value, position) => {
    if (value === null) return; // the editor leaves holes where links were deleted
    const link = readLink(value, position, where);
    links.set(link.id, link);
  });
  return links;
}

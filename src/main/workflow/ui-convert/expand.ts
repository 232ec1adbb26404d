// Flattening a UI graph: the root's nodes, plus the inner nodes of every subgraph instance (ids
// `PARENT:INNER`, nested to any depth) and of every legacy group node (ids `PARENT:INDEX`). An
// expanded instance stays behind as a pass-through node, so links to its outputs reach the inner
// node that feeds each output. A work list, not recursion: deep nesting cannot blow the stack.
import { isJsonObject, type JsonObject, type JsonValue } from '@shared/json';
import type { NodeDefinitions } from '@main/service/object-info';
import { UiConversionError } from './errors';
import { expandGroupNode, groupNodeDefinition } from './group-nodes';
import { MODE_BYPASS, MODE_MUTED, NOTE_TYPES, type FlatInput, type FlatNode, type FlatNodeKind, type InputSource, type ValueOrigin } from './model';
import { readLinks, readNodes, type RawLink, type RawNode } from './read-graph';
import { instanceBoundary, proxyOverrides, readSubgraphSlots, type SubgraphSlot } from './subgraph-boundary';

/** Guard against a file whose subgraphs multiply into an unbounded number of nodes. */
export const MAX_EXPANDED_NODES = 2_000_000;

const SUBGRAPH_INPUT_NODE = '-10';
const SUBGRAPH_OUTPUT_NODE = '-20';

interface SubgraphDefinition {
  id: string;
  name: string;
  nodes: RawNode[];
  links: Map<string, RawLink>;
  /** Its declared inputs (`inputs`), in order. */
  slots: SubgraphSlot[];
}

interface Scope {
  /** '' for the root, '12:' inside instance 12, '12:5:' inside instance 5 of that one. */
  prefix: string;
  where: string;
  nodes: RawNode[];
  links: Map<string, RawLink>;
  /** What a link from the subgraph's input node (origin -10, slot k) stands for. */
  boundary: ((slot: number) => InputSource | null) | null;
  /** Subgraph ids this scope is inside of, to refuse a subgraph that contains itself. */
  ancestry: readonly string[];
  /** Promoted widget values for this scope's nodes, by inner node id. */
  overrides: Map<string, Map<string, ValueOrigin>> | null;
}

export interface FlatGraph {
  nodes: Map<string, FlatNode>;
  /** Ids in file order (expanded nodes after their instance). */
  order: string[];
}

function kindOf(type: string): FlatNodeKind {
  if (type === 'Reroute') return 'reroute';
  if (type === 'PrimitiveNode') return 'primitive';
  if (NOTE_TYPES.has(type)) return 'note';
  return 'normal';
}

/** Every subgraph definition in the file: the root's `definitions.subgraphs`, and any nested ones. */
function readSubgraphs(graph: JsonObject): Map<string, SubgraphDefinition> {
  const found = new Map<string, SubgraphDefinition>();
  const pending: JsonValue[] = [graph.definitions ?? null];
  while (pending.length > 0) {
    const definitions = pending.pop();
    if (!isJsonObject(definitions) || !Array.isArray(definitions.subgraphs)) continue;
    definitions.subgraphs.forEach((value, position) => {
      if (!isJsonObject(value) || typeof value.id !== 'string' || value.id === '') {
        throw new UiConversionError(`definitions.subgraphs[${position}] has no id.`);
      }
      if (found.has(value.id)) return;
      const name = typeof value.name === 'string' && value.name !== '' ? value.name : value.id;
      const where = `subgraph "${name}": `;
      found.set(value.id, {
        id: value.id,
        name,
        nodes: readNodes(value.nodes ?? [], where),
        links: readLinks(value.links, where),
        slots: readSubgraphSlots(value.inputs),
      });
      pending.push(value.definitions ?? null);
    });
  }
  return found;
}

export function sourceIn(scope: Scope, linkId: string | null): InputSource | null {
  if (linkId === null) return null;
  const link = scope.links.get(linkId);
  if (!link) return null; // the editor ignores a socket whose link record is gone
  if (link.originId === SUBGRAPH_INPUT_NODE && scope.boundary) return scope.boundary(link.originSlot);
  return { kind: 'link', nodeId: scope.prefix + link.originId, slot: link.originSlot };
}

function flatInputs(scope: Scope, node: RawNode): FlatInput[] {
  return node.inputs.map((input) => ({ name: input.name, type: input.type, widgetName: input.widgetName, source: sourceIn(scope, input.linkId) }));
}

export function expandGraph(graph: JsonObject, definitions: NodeDefinitions): FlatGraph {
  const subgraphs = readSubgraphs(graph);
  const groupNodes = isJsonObject(graph.extra) && isJsonObject(graph.extra.groupNodes) ? graph.extra.groupNodes : {};
  const nodes = new Map<string, FlatNode>();
  const order: string[] = [];
  const add = (node: FlatNode, where: string): void => {
    if (nodes.has(node.id)) throw new UiConversionError(`${where}node id ${node.id} is used twice.`, [], node.id);
    if (nodes.size >= MAX_EXPANDED_NODES) throw new UiConversionError(`The workflow expands to more than ${MAX_EXPANDED_NODES} nodes.`, [], node.id);
    nodes.set(node.id, node);
    order.push(node.id);
  };

  const work: Scope[] = [
    { prefix: '', where: '', nodes: readNodes(graph.nodes, ''), links: readLinks(graph.links, ''), boundary: null, ancestry: [], overrides: null },
  ];
  while (work.length > 0) {
    const scope = work.pop()!;
    for (const node of scope.nodes) {
      // A subgraph's own input and output nodes only carry links across its edge.
      if (scope.boundary && (node.id === SUBGRAPH_INPUT_NODE || node.id === SUBGRAPH_OUTPUT_NODE)) continue;
      const id = scope.prefix + node.id;
      const widgetOverrides = scope.overrides?.get(node.id) ?? null;
      const flat = (kind: FlatNodeKind, inputs: FlatInput[]): FlatNode => ({
        id,
        type: node.type,
        kind,
        mode: node.mode,
        title: node.title,
        inputs,
        outputCount: node.outputCount,
        widgetsValues: node.widgetsValues,
        widgetOverrides,
      });
      const subgraph = subgraphs.size > 0 ? subgraphs.get(node.type) : undefined;
      const group = subgraph || !node.type.startsWith('workflow') ? null : groupNodeDefinition(groupNodes, node.type);
      // A muted or bypassed group node is not opened: it behaves as one node with its own sockets.
      const expand = node.mode !== MODE_MUTED && node.mode !== MODE_BYPASS;
      // A bypassed subgraph instance is opened all the same: the editor queues its inner nodes (each
      // by its own mode) while links through the instance pass it by as through any bypassed node.
      // A muted one stays shut (nothing in it runs).
      if (subgraph && node.mode !== MODE_MUTED) {
        if (scope.ancestry.includes(subgraph.id)) {
          throw new UiConversionError(`${scope.where}node ${id}: subgraph "${subgraph.name}" contains itself.`, [], id);
        }
        const outer = flatInputs(scope, node);
        const overrides = proxyOverrides(node);
        const inner: Scope = {
          prefix: `${id}:`,
          where: `subgraph "${subgraph.name}" (node ${id}): `,
          nodes: subgraph.nodes,
          links: subgraph.links,
          ancestry: [...scope.ancestry, subgraph.id],
          overrides,
          boundary: instanceBoundary(node, outer, subgraph),
        };
        // The instance forwards output j from whatever inner node feeds the output node's slot j.
        const forwards: FlatInput[] = [];
        for (const link of subgraph.links.values()) {
          if (link.targetId !== SUBGRAPH_OUTPUT_NODE) continue;
          forwards[link.targetSlot] = { name: `output ${link.targetSlot}`, type: link.type, widgetName: null, source: sourceIn(inner, link.id) };
        }
        for (let i = 0; i < forwards.length; i += 1) forwards[i] ??= { name: `output ${i}`, type: '*', widgetName: null, source: null };
        add(node.mode === MODE_BYPASS ? flat('normal', outer) : flat('passthrough', forwards), scope.where);
        work.push(inner);
        continue;
      }
      if (group && expand) {
        const expanded = expandGroupNode(node, id, flatInputs(scope, node), group, definitions, scope.where);
        add(flat('passthrough', expanded.forwards), scope.where);
        for (const innerNode of expanded.nodes) add({ ...innerNode, kind: kindOf(innerNode.type) }, scope.where);
        continue;
      }
      add(flat(kindOf(node.type), flatInputs(scope, node)), scope.where);
    }
  }
  return { nodes, order };
}

// When a graph converts to an empty prompt (only notes, muted or bypassed nodes, frames, an empty
// subgraph): the conversion itself is right, there is simply nothing to run. This says what the graph
// held and why none of it is left, so "nothing to run" is never a bare "no nodes".
import { isJsonObject, type JsonObject } from '@shared/json';
import type { FlatGraph } from './expand';
import { MODE_BYPASS, MODE_MUTED, type FlatNode } from './model';

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

function named(list: readonly FlatNode[]): string {
  const shown = list.slice(0, 4).map((node) => `${node.type} ${node.id}`);
  return `${shown.join(', ')}${list.length > 4 ? ', ...' : ''}`;
}

/** Why a graph's prompt is empty: what each kind of node it held does not send. */
export function explainEmptyPrompt(graph: JsonObject, flat: FlatGraph): string {
  const notes: FlatNode[] = [];
  const muted: FlatNode[] = [];
  const bypassed: FlatNode[] = [];
  const virtual: FlatNode[] = [];
  let instances = 0;
  for (const id of flat.order) {
    const node = flat.nodes.get(id)!;
    if (node.kind === 'note') notes.push(node);
    else if (node.kind === 'passthrough') instances += 1;
    else if (node.kind === 'reroute' || node.kind === 'primitive') virtual.push(node);
    else if (node.mode === MODE_MUTED) muted.push(node);
    else if (node.mode === MODE_BYPASS) bypassed.push(node);
  }
  const frames = Array.isArray(graph.groups) ? graph.groups.filter(isJsonObject).length : 0;
  const parts: string[] = [];
  if (notes.length > 0) parts.push(`${plural(notes.length, 'note')} (${named(notes)}), which the editor never sends`);
  if (muted.length > 0) parts.push(`${plural(muted.length, 'muted node')} (${named(muted)}), which the server never runs`);
  if (bypassed.length > 0) parts.push(`${plural(bypassed.length, 'bypassed node')} (${named(bypassed)}), which the editor passes by`);
  if (virtual.length > 0)
    parts.push(`${plural(virtual.length, 'Reroute or Primitive node')} (${named(virtual)}), which the editor resolves into the nodes they feed`);
  if (instances > 0) parts.push(`${plural(instances, 'subgraph or group node')} with nothing inside that runs`);
  if (frames > 0) parts.push(`${plural(frames, 'group frame')}, which the editor draws around nodes and never sends`);
  if (parts.length === 0) return 'The workflow has no nodes at all: there is nothing to run.';
  return `Nothing in this workflow runs on the server: it holds ${parts.join('; ')}.`;
}

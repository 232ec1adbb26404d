// The node definitions a check of named inputs (--bind, --set) needs: those of the classes the
// named nodes are, not the server's whole list. A local server answers them one class at a time
// (service/node-definitions-of.ts); an install with many custom nodes sends megabytes for the
// whole list, which took seconds before every `run --set` and `watch`.
import type { NodeDefinitions } from '@main/service/object-info';
import type { ServiceApi } from '@main/service/ports';
import type { Workflow } from '@main/service/types';
import type { InputRef } from '@main/workflow/edit';
import { isJsonObject } from '@shared/json';

/** The definitions of the classes of the nodes `refs` name; empty when none of them names a node with a class. */
export async function definitionsForInputs(api: ServiceApi, workflow: Workflow, refs: readonly InputRef[]): Promise<NodeDefinitions> {
  const classes = new Set<string>();
  for (const ref of refs) {
    const node = Object.hasOwn(workflow, ref.nodeId) ? workflow[ref.nodeId] : undefined;
    if (isJsonObject(node) && typeof node.class_type === 'string') classes.add(node.class_type);
  }
  if (classes.size === 0) return new Map();
  return api.getNodeDefinitionsOf ? api.getNodeDefinitionsOf([...classes]) : api.getNodeDefinitions();
}

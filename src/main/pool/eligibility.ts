// Whether a server can run a workflow, judged from its node definitions before anything is sent:
// every class must be installed, and every chosen value of a list input (a model, a sampler, a
// file already on the server) must be in that server's list. A pool dispatches a job only to
// servers that lack nothing, and a job that no server can run fails at once, naming what each lacks.
import { isJsonObject } from '@shared/json';
import type { NodeDefinitions } from '@main/service/object-info';
import type { Workflow } from '@main/service/types';
import type { InputRef } from '@main/workflow/edit';

/** At most this many missing values are named per server, so a message stays readable. */
const MAX_NAMED = 8;

/**
 * What `definitions` lacks to run `workflow`: missing classes first, then chosen list values the
 * server does not offer. Inputs in `skip` are not checked (a hot folder's bound input receives a
 * file uploaded to whichever server runs it). Empty when the server can run it.
 */
export function serverLacks(workflow: Workflow, definitions: NodeDefinitions, skip: readonly InputRef[] = []): string[] {
  const missingClasses = new Set<string>();
  const missingValues: string[] = [];
  for (const [nodeId, node] of Object.entries(workflow)) {
    if (!isJsonObject(node) || typeof node.class_type !== 'string') continue;
    const definition = definitions.get(node.class_type);
    if (!definition) {
      missingClasses.add(node.class_type);
      continue;
    }
    const inputs = isJsonObject(node.inputs) ? node.inputs : {};
    for (const spec of definition.inputs) {
      if (spec.kind !== 'combo' || spec.multiselect || spec.options.length === 0) continue;
      if (skip.some((ref) => ref.nodeId === nodeId && ref.input === spec.name)) continue;
      if (!Object.hasOwn(inputs, spec.name)) continue;
      const value = inputs[spec.name];
      // A link, or a value of another type: the server's own validation speaks for those.
      if (typeof value !== 'string' && typeof value !== 'number') continue;
      if (!spec.options.includes(value)) missingValues.push(`${node.class_type}.${spec.name} "${String(value)}" (node ${nodeId})`);
    }
  }
  const lacks: string[] = [];
  if (missingClasses.size > 0) lacks.push(`the node class${missingClasses.size === 1 ? '' : 'es'} ${[...missingClasses].sort().join(', ')}`);
  if (missingValues.length > 0) {
    const named = missingValues.slice(0, MAX_NAMED).join(', ');
    const more = missingValues.length > MAX_NAMED ? ` and ${missingValues.length - MAX_NAMED} more` : '';
    lacks.push(`the value${missingValues.length === 1 ? '' : 's'} ${named}${more}`);
  }
  return lacks;
}

// The Run form's filter: which node cards and inputs a query shows. A query naming the node (its
// id, display name or class) shows all its inputs; otherwise only the inputs whose name holds it.
import type { FormField, NodeGroup } from './form-model';

export interface ShownGroup {
  group: NodeGroup;
  fields: FormField[];
  /** The group's position in the whole form (stable ids for its fields). */
  index: number;
}

export function filterGroups(groups: readonly NodeGroup[], query: string): ShownGroup[] {
  const q = query.trim().toLowerCase();
  const all = groups.map((group, index) => ({ group, fields: group.fields, index }));
  if (q === '') return all;
  return all.flatMap(({ group, index }) => {
    const named = [group.id, group.displayName, group.classType].some((s) => s.toLowerCase().includes(q));
    const fields = named ? group.fields : group.fields.filter((f) => f.name.toLowerCase().includes(q));
    return fields.length > 0 || named ? [{ group, fields, index }] : [];
  });
}

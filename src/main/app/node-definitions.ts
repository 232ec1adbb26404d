// The service client's node definitions (exact: seed maxima are bigint) in the contract's
// serialisable form: numbers beyond 2^53 become {bigint}, hidden inputs (PROMPT, UNIQUE_ID, ...)
// are left out because no one edits them.
import type { NodeClassView, NodeInputView } from '@shared/ipc/contract';
import { toExactNumber } from '@shared/ipc/exact';
import type { InputSpec, NodeDefinition, NodeDefinitions } from '@main/service/object-info';

function inputView(spec: InputSpec): NodeInputView {
  const base = {
    name: spec.name,
    required: spec.section === 'required',
    ...(spec.tooltip ? { tooltip: spec.tooltip } : {}),
    ...(spec.imageUpload ? { imageUpload: true } : {}),
  };
  switch (spec.kind) {
    case 'int':
      return {
        ...base,
        kind: 'int',
        type: 'INT',
        ...(spec.default !== null ? { default: toExactNumber(spec.default) } : {}),
        ...(spec.min !== null ? { min: toExactNumber(spec.min) } : {}),
        ...(spec.max !== null ? { max: toExactNumber(spec.max) } : {}),
        ...(spec.step !== null ? { step: toExactNumber(spec.step) } : {}),
      };
    case 'float':
      return {
        ...base,
        kind: 'float',
        type: 'FLOAT',
        ...(spec.default !== null ? { default: spec.default } : {}),
        ...(spec.min !== null ? { min: spec.min } : {}),
        ...(spec.max !== null ? { max: spec.max } : {}),
        ...(spec.step !== null ? { step: spec.step } : {}),
        ...(spec.round !== null ? { round: spec.round } : {}),
      };
    case 'string':
      return { ...base, kind: 'string', type: 'STRING', multiline: spec.multiline, ...(spec.default !== null ? { default: spec.default } : {}) };
    case 'boolean':
      return { ...base, kind: 'boolean', type: 'BOOLEAN', ...(spec.default !== null ? { default: spec.default } : {}) };
    case 'combo':
      return {
        ...base,
        kind: 'combo',
        type: 'COMBO',
        options: spec.options,
        multiselect: spec.multiselect,
        ...(spec.default !== null ? { default: spec.default } : {}),
      };
    case 'link':
      return { ...base, kind: 'link', type: spec.type };
  }
}

export function nodeClassView(definition: NodeDefinition): NodeClassView {
  return {
    name: definition.name,
    displayName: definition.displayName,
    category: definition.category,
    description: definition.description,
    outputNode: definition.outputNode,
    apiNode: definition.apiNode,
    deprecated: definition.deprecated,
    experimental: definition.experimental,
    inputs: definition.inputs.filter((i) => i.section !== 'hidden').map(inputView),
    outputs: definition.outputs.map((o) => ({ name: o.name, type: o.type, isList: o.isList })),
  };
}

export function nodeDefinitionsView(definitions: NodeDefinitions): Record<string, NodeClassView> {
  const out: Record<string, NodeClassView> = {};
  for (const [name, definition] of definitions) out[name] = nodeClassView(definition);
  return out;
}

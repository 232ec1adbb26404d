// A node definition as the renderer receives it, for form tests: only the name, the display name
// and the inputs vary between tests.
import type { NodeClassView, NodeInputView } from '@shared/ipc/contract';

export function nodeClass(name: string, displayName: string, inputs: NodeInputView[]): NodeClassView {
  return {
    name,
    displayName,
    category: 'demo',
    description: '',
    outputNode: false,
    apiNode: false,
    deprecated: false,
    experimental: false,
    inputs,
    outputs: [],
  };
}

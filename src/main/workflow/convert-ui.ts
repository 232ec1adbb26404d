// UI-format workflow (the editor's graph) -> API prompt, as the editor's graphToPrompt would queue it,
// using the node definitions of the server it will run on.
// INTERFACE STUB: the implementation lands with issue 11's converter; the signature is fixed.
import type { JsonObject } from '../../shared/json';
import type { NodeDefinitions } from '../service/object-info';
import type { Workflow } from '../service/types';

export interface UiConversion {
  /** {id: {class_type, inputs, _meta: {title}}} */
  prompt: Workflow;
  /** Things the editor would have done silently but a user may want to know (a Reroute chain that ends nowhere, ...). */
  warnings: string[];
}

/** Conversion impossible: custom node classes missing on the server, a cycle, a link to a missing slot, ... */
export class UiConversionError extends Error {
  constructor(
    message: string,
    /** Classes neither the server nor the file's own widget names can describe. */
    readonly missingClasses: string[] = [],
    /** The node the problem is about, when there is one. */
    readonly nodeId: string | null = null,
  ) {
    super(message);
    this.name = 'UiConversionError';
  }
}

/** True for the editor's graph format: `nodes` and `links` arrays (schema 0.4 and 1). */
export function isUiWorkflow(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Array.isArray((value as JsonObject).nodes);
}

export function convertUiWorkflow(graph: JsonObject, definitions: NodeDefinitions): UiConversion {
  void graph;
  void definitions;
  throw new UiConversionError('UI-format conversion is not implemented yet.');
}

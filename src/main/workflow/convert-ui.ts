// UI-format workflow (the editor's graph) -> API prompt, as the editor's graphToPrompt would queue it,
// using the node definitions of the server it will run on. The work is split by step under ui-convert/.
import type { JsonObject } from '@shared/json';

export { convertUiWorkflow, type UiConversion, type UnknowableInput } from './ui-convert/convert';
export { UiConversionError } from './ui-convert/errors';

/** True for the editor's graph format: `nodes` and `links` arrays (schema 0.4 and 1). */
export function isUiWorkflow(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Array.isArray((value as JsonObject).nodes);
}

// What a workflow file holds, told by its content, for the app (open, drop, library "Open workflow")
// and the CLI (run, watch, convert) alike: an API-format JSON as it is; a UI-format JSON (the
// editor graph) converted with a server's node definitions; a PNG/WebP output by its embedded
// `prompt` (exactly what ran), else its embedded `workflow` (converted when it is an editor graph;
// some tools store the API format there). Each caller words the outcome its own way (an IPC view,
// a CLI error with an exit code); the reading itself is done once, here.
import { MAX_WORKFLOW_FILE_BYTES } from '@shared/workflow-file-limit';
import { parseJsonExact, type JsonObject, type JsonValue } from '@shared/json';
import type { NodeDefinitions } from '@main/service/object-info';
import type { Workflow } from '@main/service/types';
import { convertUiWorkflow, isUiWorkflow, type UnknowableInput } from './convert-ui';
import { EmbeddedWorkflowError, imageFormatOf, readEmbeddedWorkflow } from './embedded-workflow';
import { interpretWorkflow } from './parse';

/** Where the node definitions come from, when a file needs them. */
export interface DefinitionsSource {
  /** Already loaded (no waiting): enough to mark the unknown classes of an API workflow. */
  cached(): NodeDefinitions | null;
  /** Waits for them: converting an editor graph cannot do without them. Null when they cannot be had. */
  wait(): Promise<NodeDefinitions | null>;
}

/** Definitions known up front (or known to be missing): both ways answer the same. */
export function fixedDefinitions(definitions: NodeDefinitions | null): DefinitionsSource {
  return { cached: () => definitions, wait: async () => definitions };
}

/** Where a runnable prompt came from. */
export type WorkflowSource = 'api' | 'ui' | 'image-prompt' | 'image-workflow';

export type WorkflowReading =
  | {
      kind: 'workflow';
      source: WorkflowSource;
      workflow: Workflow;
      nodeCount: number;
      /** The editor graph it came from (a UI file, an image's `workflow` chunk), else null. */
      graph: JsonObject | null;
      /** Conversion notes (a Reroute chain that ends nowhere, ...). */
      warnings: string[];
      /** Inputs an editor graph's conversion had to leave out: no file holds their value. */
      unknowable?: UnknowableInput[];
    }
  | { kind: 'invalid_json'; detail: string; position: { offset: number; line: number; column: number } | null }
  | { kind: 'not_a_workflow'; message: string }
  /** An editor graph (`source` says where it was) whose conversion threw `error` (UiConversionError names missing classes). */
  | { kind: 'conversion_failed'; source: 'ui' | 'image-workflow'; error: unknown }
  /**
   * Converted, but the result cannot run. `empty`: the prompt is empty (no node the server runs, the
   * message says what the graph held), which is still the exact conversion (`convert` prints it).
   */
  | { kind: 'converted_unrunnable'; source: 'ui' | 'image-workflow'; message: string; empty?: { graph: JsonObject; warnings: string[] } }
  /** An editor graph, and no node definitions to convert it with. */
  | { kind: 'definitions_missing'; source: 'ui' | 'image-workflow' };

/** line/column (1-based) of a character offset. */
export function positionOf(text: string, offset: number): { offset: number; line: number; column: number } {
  const clamped = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < clamped; i += 1) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { offset: clamped, line, column: clamped - lineStart + 1 };
}

async function converted(source: 'ui' | 'image-workflow', graph: JsonObject, definitions: DefinitionsSource): Promise<WorkflowReading> {
  const known = await definitions.wait();
  if (!known) return { kind: 'definitions_missing', source };
  let result;
  try {
    result = convertUiWorkflow(graph, known);
  } catch (error) {
    // Whatever the converter trips over (a cycle, a link to a missing slot), the caller gets a reading, not a crash.
    return { kind: 'conversion_failed', source, error };
  }
  if (result.emptyBecause !== null) return { kind: 'converted_unrunnable', source, message: result.emptyBecause, empty: { graph, warnings: result.warnings } };
  const parsed = interpretWorkflow(result.prompt);
  if (!parsed.ok) return { kind: 'converted_unrunnable', source, message: parsed.message };
  return { kind: 'workflow', source, workflow: parsed.workflow, nodeCount: parsed.nodeCount, graph, warnings: result.warnings, unknowable: result.unknowable };
}

/** A JSON value from a file: the editor graph is converted, anything else must be the API format. */
export async function readWorkflowValue(value: JsonValue, definitions: DefinitionsSource): Promise<WorkflowReading> {
  if (isUiWorkflow(value)) return converted('ui', value, definitions);
  const parsed = interpretWorkflow(value);
  if (!parsed.ok) return { kind: 'not_a_workflow', message: parsed.message };
  return { kind: 'workflow', source: 'api', workflow: parsed.workflow, nodeCount: parsed.nodeCount, graph: null, warnings: [] };
}

/** A workflow file's text (API or UI format). */
export async function readWorkflowText(text: string, definitions: DefinitionsSource): Promise<WorkflowReading> {
  // A byte-order mark is common in files saved by Windows editors; it is not an error.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: JsonValue;
  try {
    value = parseJsonExact(body);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const match = /at position (\d+)/.exec(detail);
    return { kind: 'invalid_json', detail, position: match?.[1] !== undefined ? positionOf(body, Number(match[1])) : null };
  }
  return readWorkflowValue(value, definitions);
}

/** A PNG or WebP output: the `prompt` that ran, else its `workflow` (converted when it is an editor graph). */
async function readImage(bytes: Uint8Array, definitions: DefinitionsSource): Promise<WorkflowReading> {
  let embedded;
  try {
    embedded = readEmbeddedWorkflow(bytes);
  } catch (error) {
    if (error instanceof EmbeddedWorkflowError) return { kind: 'not_a_workflow', message: error.message };
    throw error;
  }
  if (embedded.prompt !== null) {
    const parsed = interpretWorkflow(embedded.prompt);
    if (parsed.ok)
      return { kind: 'workflow', source: 'image-prompt', workflow: parsed.workflow, nodeCount: parsed.nodeCount, graph: embedded.workflow, warnings: [] };
    if (embedded.workflow === null) return { kind: 'not_a_workflow', message: `The image's "prompt" chunk is not a workflow: ${parsed.message}` };
  }
  if (embedded.workflow !== null) {
    if (isUiWorkflow(embedded.workflow)) return converted('image-workflow', embedded.workflow, definitions);
    // Some tools store the API format under "workflow".
    const parsed = interpretWorkflow(embedded.workflow);
    if (parsed.ok) return { kind: 'workflow', source: 'image-workflow', workflow: parsed.workflow, nodeCount: parsed.nodeCount, graph: null, warnings: [] };
    return { kind: 'not_a_workflow', message: `The image's "workflow" chunk is not a workflow: ${parsed.message}` };
  }
  return { kind: 'not_a_workflow', message: 'This image carries no workflow (it has no "prompt" or "workflow" text chunk).' };
}

function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

/** A RIFF container (WebP or a file posing as one): the image reader says what is wrong with it. */
function isRiff(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[2] === 0x46 && bytes[3] === 0x46;
}

/** A file's bytes, whichever of the three kinds it is (told by its content, not its name). */
export async function readWorkflowBytes(bytes: Uint8Array, definitions: DefinitionsSource): Promise<WorkflowReading> {
  if (bytes.byteLength > MAX_WORKFLOW_FILE_BYTES) return { kind: 'not_a_workflow', message: 'The file is larger than 50 MB; that is not a workflow.' };
  if (imageFormatOf(bytes) !== null || isRiff(bytes)) return readImage(bytes, definitions);
  if (isJpeg(bytes)) return { kind: 'not_a_workflow', message: 'This is a JPEG image; JPEG outputs carry no workflow (only PNG and WebP outputs do).' };
  return readWorkflowText(new TextDecoder('utf-8').decode(bytes), definitions);
}

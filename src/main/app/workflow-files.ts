// Opening and parsing workflow files for the renderer. Three kinds open: an API-format JSON (kept as
// exact JSON text), a UI-format JSON (the editor graph, converted with the active server's node
// definitions), and a PNG/WebP output carrying its workflow (its `prompt` runs; its `workflow` graph
// is kept for provenance). Invalid JSON is reported with line and column, unknown classes are listed,
// and an image without a workflow says so. The recent list lives in settings.
import { stat, readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { MAX_WORKFLOW_FILE_BYTES, type WorkflowParseView } from '../../shared/ipc/contract';
import { parseJsonExact, stringifyJsonExact, type JsonObject, type JsonValue } from '../../shared/json';
import type { SettingsStore } from '../config/settings';
import type { NodeDefinitions } from '../service/object-info';
import type { Workflow } from '../service/types';
import { convertUiWorkflow, isUiWorkflow, UiConversionError } from '../workflow/convert-ui';
import { EmbeddedWorkflowError, imageFormatOf, readEmbeddedWorkflow } from '../workflow/embedded-workflow';
import { interpretWorkflow, unknownClasses } from '../workflow/parse';
import { AppFailure } from './errors';

const MAX_RECENT = 20;

/** Where the active server's node definitions come from, when a file needs them. */
export interface DefinitionsSource {
  /** Already loaded (no waiting): enough to mark the unknown classes of an API workflow. */
  cached(): NodeDefinitions | null;
  /** Waits for them (briefly): converting a UI workflow cannot do without them. */
  wait(): Promise<NodeDefinitions | null>;
}

/** Definitions known up front (or known to be missing): both ways answer the same. */
export function fixedDefinitions(definitions: NodeDefinitions | null): DefinitionsSource {
  return { cached: () => definitions, wait: async () => definitions };
}

type RunnableFormat = 'api' | 'ui' | 'image';

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

function runnable(format: RunnableFormat, workflow: Workflow, nodeCount: number, known: NodeDefinitions | null, graph: JsonObject | null, warnings: string[]): WorkflowParseView {
  return {
    format,
    workflowJson: stringifyJsonExact(workflow),
    nodeCount,
    unknownClasses: known ? unknownClasses(workflow, known) : null,
    uiWorkflowJson: graph === null ? null : stringifyJsonExact(graph),
    warnings,
  };
}

function conversionFailed(error: unknown): WorkflowParseView {
  if (error instanceof UiConversionError && error.missingClasses.length > 0) {
    const list = error.missingClasses.join(', ');
    return {
      format: 'conversion_failed',
      message: `This workflow uses node classes the active server does not have: ${list}. They are custom nodes: install them on the server, or pick a server that has them.`,
      missingClasses: [...error.missingClasses],
      nodeId: error.nodeId,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  const nodeId = error instanceof UiConversionError ? error.nodeId : null;
  return { format: 'conversion_failed', message: `The UI-format workflow could not be converted: ${message}`, missingClasses: [], nodeId };
}

/** The editor graph -> the API prompt, with the active server's definitions. */
async function convertedView(format: 'ui' | 'image', graph: JsonObject, definitions: DefinitionsSource): Promise<WorkflowParseView> {
  const known = await definitions.wait();
  if (!known) {
    return {
      format: 'conversion_failed',
      message: 'Converting a UI-format workflow needs the node definitions of the active server, and they could not be loaded. Connect to a server, then open the file again.',
      missingClasses: [],
      nodeId: null,
    };
  }
  let converted;
  try {
    converted = convertUiWorkflow(graph, known);
  } catch (error) {
    // Whatever the converter trips over (a cycle, a link to a missing slot), the user gets a message, not a crash.
    return conversionFailed(error);
  }
  const parsed = interpretWorkflow(converted.prompt);
  if (!parsed.ok) return { format: 'conversion_failed', message: `The converted workflow cannot run: ${parsed.message}`, missingClasses: [], nodeId: null };
  return runnable(format, parsed.workflow, parsed.nodeCount, known, graph, converted.warnings);
}

/** A JSON value from a file or a chunk: the editor graph is converted, anything else must be the API format. */
export async function workflowViewOfValue(value: JsonValue, definitions: DefinitionsSource): Promise<WorkflowParseView> {
  if (isUiWorkflow(value)) return convertedView('ui', value, definitions);
  const parsed = interpretWorkflow(value);
  if (!parsed.ok) return { format: 'not_a_workflow', message: parsed.message };
  return runnable('api', parsed.workflow, parsed.nodeCount, definitions.cached(), null, []);
}

/** A workflow file's text (API or UI format). */
export async function workflowViewOfText(text: string, definitions: DefinitionsSource): Promise<WorkflowParseView> {
  // A byte-order mark is common in files saved by Windows editors; it is not an error.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: JsonValue;
  try {
    value = parseJsonExact(body);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const match = /at position (\d+)/.exec(detail);
    const position = match?.[1] !== undefined ? positionOf(body, Number(match[1])) : null;
    const where = position ? ` (line ${position.line}, column ${position.column})` : '';
    return { format: 'invalid_json', message: `The workflow is not valid JSON: ${detail}${where}`, position };
  }
  return workflowViewOfValue(value, definitions);
}

/** A PNG or WebP output: the `prompt` that ran, else its `workflow` graph converted. */
async function imageView(bytes: Uint8Array, definitions: DefinitionsSource): Promise<WorkflowParseView> {
  let embedded;
  try {
    embedded = readEmbeddedWorkflow(bytes);
  } catch (error) {
    if (error instanceof EmbeddedWorkflowError) return { format: 'not_a_workflow', message: error.message };
    throw error;
  }
  if (embedded.prompt !== null) {
    const parsed = interpretWorkflow(embedded.prompt);
    if (parsed.ok) return runnable('image', parsed.workflow, parsed.nodeCount, definitions.cached(), embedded.workflow, []);
    if (embedded.workflow === null) return { format: 'not_a_workflow', message: `The image's "prompt" chunk is not a workflow: ${parsed.message}` };
  }
  if (embedded.workflow !== null) {
    if (isUiWorkflow(embedded.workflow)) return convertedView('image', embedded.workflow, definitions);
    // Some tools store the API format under "workflow".
    const parsed = interpretWorkflow(embedded.workflow);
    if (parsed.ok) return runnable('image', parsed.workflow, parsed.nodeCount, definitions.cached(), null, []);
    return { format: 'not_a_workflow', message: `The image's "workflow" chunk is not a workflow: ${parsed.message}` };
  }
  return { format: 'not_a_workflow', message: 'This image carries no workflow (it has no "prompt" or "workflow" text chunk).' };
}

function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

/** A RIFF container (WebP or a file posing as one): the image reader says what is wrong with it. */
function isRiff(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[2] === 0x46 && bytes[3] === 0x46;
}

/** A file's bytes, whichever of the three kinds it is (told by its content, not its name). */
export async function workflowViewOfBytes(bytes: Uint8Array, definitions: DefinitionsSource): Promise<WorkflowParseView> {
  if (bytes.byteLength > MAX_WORKFLOW_FILE_BYTES) return { format: 'not_a_workflow', message: 'The file is larger than 50 MB; that is not a workflow.' };
  if (imageFormatOf(bytes) !== null || isRiff(bytes)) return imageView(bytes, definitions);
  if (isJpeg(bytes)) return { format: 'not_a_workflow', message: 'This is a JPEG image; JPEG outputs carry no workflow (only PNG and WebP outputs do).' };
  return workflowViewOfText(new TextDecoder('utf-8').decode(bytes), definitions);
}

export async function readWorkflowFile(path: string): Promise<{ path: string; name: string; bytes: Uint8Array }> {
  const full = resolve(path);
  let size: number;
  try {
    const info = await stat(full);
    if (!info.isFile()) throw new AppFailure('invalid_input', `${full} is not a file.`);
    size = info.size;
  } catch (error) {
    if (error instanceof AppFailure) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new AppFailure('not_found', code === 'ENOENT' ? `The workflow file ${full} does not exist.` : `Cannot read the workflow file ${full} (${code ?? 'error'}).`);
  }
  const tooLarge = (): AppFailure => new AppFailure('invalid_input', `The workflow file ${full} is larger than 50 MB; that is not a workflow.`);
  if (size > MAX_WORKFLOW_FILE_BYTES) throw tooLarge();
  const bytes = await readFile(full);
  // The file may have grown since stat.
  if (bytes.byteLength > MAX_WORKFLOW_FILE_BYTES) throw tooLarge();
  return { path: full, name: basename(full), bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

export function recentWorkflows(settings: SettingsStore): { path: string; name: string }[] {
  return settings.read().recentWorkflows.map((path) => ({ path, name: basename(path) }));
}

export function rememberWorkflow(settings: SettingsStore, path: string): void {
  settings.update((s) => ({ ...s, recentWorkflows: [path, ...s.recentWorkflows.filter((p) => p !== path)].slice(0, MAX_RECENT) }));
}

export function isRecentWorkflow(settings: SettingsStore, path: string): boolean {
  return settings.read().recentWorkflows.includes(resolve(path));
}

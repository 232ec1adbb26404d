// Opening and parsing workflow files for the renderer. Three kinds open: an API-format JSON (kept as
// exact JSON text), a UI-format JSON (the editor graph, converted with the active server's node
// definitions), and a PNG/WebP output carrying its workflow (its `prompt` runs; its `workflow` graph
// is kept for provenance). Invalid JSON is reported with line and column, unknown classes are listed,
// and an image without a workflow says so. The recent list lives in settings.
import { stat, readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { MAX_WORKFLOW_FILE_BYTES, type WorkflowParseView } from '@shared/ipc/contract';
import { stringifyJsonExact, type JsonValue } from '@shared/json';
import type { SettingsStore } from '@main/config/settings';
import { UiConversionError } from '@main/workflow/convert-ui';
import { unknownClasses } from '@main/workflow/parse';
import {
  readWorkflowBytes,
  readWorkflowText,
  readWorkflowValue,
  type DefinitionsSource,
  type WorkflowReading,
  type WorkflowSource,
} from '@main/workflow/workflow-reading';

import { AppFailure } from './errors';

const MAX_RECENT = 20;

const FORMAT_OF_SOURCE: Record<WorkflowSource, 'api' | 'ui' | 'image'> = { api: 'api', ui: 'ui', 'image-prompt': 'image', 'image-workflow': 'image' };

/** A reading (workflow/workflow-reading.ts) as the renderer sees it, with the classes the server lacks. */
function viewOf(reading: WorkflowReading, definitions: DefinitionsSource): WorkflowParseView {
  switch (reading.kind) {
    case 'workflow': {
      const known = definitions.cached();
      return {
        format: FORMAT_OF_SOURCE[reading.source],
        workflowJson: stringifyJsonExact(reading.workflow),
        nodeCount: reading.nodeCount,
        unknownClasses: known ? unknownClasses(reading.workflow, known) : null,
        uiWorkflowJson: reading.graph === null ? null : stringifyJsonExact(reading.graph),
        warnings: reading.warnings,
      };
    }
    case 'invalid_json': {
      const where = reading.position ? ` (line ${reading.position.line}, column ${reading.position.column})` : '';
      return { format: 'invalid_json', message: `The workflow is not valid JSON: ${reading.detail}${where}`, position: reading.position };
    }
    case 'not_a_workflow':
      return { format: 'not_a_workflow', message: reading.message };
    case 'conversion_failed':
      return conversionFailed(reading.error);
    case 'converted_unrunnable':
      return { format: 'conversion_failed', message: `The converted workflow cannot run: ${reading.message}`, missingClasses: [], nodeId: null };
    case 'definitions_missing':
      return {
        format: 'conversion_failed',
        message:
          'Converting a UI-format workflow needs the node definitions of the active server, and they could not be loaded. Connect to a server, then open the file again.',
        missingClasses: [],
        nodeId: null,
      };
  }
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

/** A JSON value from a file or a chunk. */
export async function workflowViewOfValue(value: JsonValue, definitions: DefinitionsSource): Promise<WorkflowParseView> {
  return viewOf(await readWorkflowValue(value, definitions), definitions);
}

/** A workflow file's text (API or UI format). */
export async function workflowViewOfText(text: string, definitions: DefinitionsSource): Promise<WorkflowParseView> {
  return viewOf(await readWorkflowText(text, definitions), definitions);
}

/** A file's bytes, whichever of the three kinds it is (told by its content, not its name). */
export async function workflowViewOfBytes(bytes: Uint8Array, definitions: DefinitionsSource): Promise<WorkflowParseView> {
  return viewOf(await readWorkflowBytes(bytes, definitions), definitions);
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
    throw new AppFailure(
      'not_found',
      code === 'ENOENT' ? `The workflow file ${full} does not exist.` : `Cannot read the workflow file ${full} (${code ?? 'error'}).`,
    );
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

// Reading a workflow file for a CLI command: API-format JSON as is; a UI-format graph converted
// with the server's node definitions; an output image by its embedded `prompt` (exactly what ran),
// else its embedded `workflow` converted. Unreadable or unconvertible input is a usage error (exit 2).
import { readFile } from 'node:fs/promises';
import { parseJsonExact, type JsonObject, type JsonValue } from '../shared/json';
import type { NodeDefinitions } from '../main/service/object-info';
import type { Workflow } from '../main/service/types';
import { checkUploadFile, LocalFileError } from '../main/files/local-input';
import { convertUiWorkflow, isUiWorkflow, UiConversionError } from '../main/workflow/convert-ui';
import { EmbeddedWorkflowError, imageFormatOf, readEmbeddedWorkflow } from '../main/workflow/embedded-workflow';
import { interpretWorkflow, UI_FORMAT_EXPLANATION } from '../main/workflow/parse';
import { UsageError } from './errors';

export interface WorkflowFile {
  /** The API prompt to run. */
  prompt: Workflow;
  /** The editor graph the prompt comes from (a UI file, or an image's `workflow` chunk), else null. */
  uiWorkflow: JsonObject | null;
  /** How the prompt was obtained. */
  origin: 'api' | 'ui' | 'image-prompt' | 'image-workflow';
  /** Conversion notes (a Reroute chain that ends nowhere, ...). */
  warnings: string[];
}

/** Where the node definitions come from when a UI graph must be converted; called at most once, only then. */
export type DefinitionsSource = () => Promise<NodeDefinitions>;

function apiPrompt(value: JsonValue, path: string, what: string): Workflow {
  const parsed = interpretWorkflow(value);
  if (!parsed.ok) throw new UsageError(`${path}: ${what}${parsed.message}`);
  return parsed.workflow;
}

async function convert(graph: JsonObject, path: string, definitions: DefinitionsSource | undefined, what: string): Promise<{ prompt: Workflow; warnings: string[] }> {
  if (!definitions) throw new UsageError(`${path}: ${what}${UI_FORMAT_EXPLANATION}`);
  let result;
  try {
    result = convertUiWorkflow(graph, await definitions());
  } catch (error) {
    if (error instanceof UiConversionError) throw new WorkflowConversionError(`${path}: ${what}cannot be converted to the API format. ${error.message}`, error);
    throw error;
  }
  if (Object.keys(result.prompt).length === 0) {
    throw new UsageError(`${path}: ${what}converts to an empty API prompt: it has no node the server runs.`);
  }
  return result;
}

/** A UI graph that cannot become an API prompt (missing classes, a cycle, ...): exit 2, with the classes listed. */
export class WorkflowConversionError extends UsageError {
  readonly missingClasses: string[];
  constructor(message: string, cause: UiConversionError) {
    super(message);
    this.name = 'WorkflowConversionError';
    this.missingClasses = cause.missingClasses;
  }
}

export async function readWorkflowFile(path: string, definitions?: DefinitionsSource): Promise<WorkflowFile> {
  let bytes: Buffer;
  try {
    checkUploadFile(path, 'workflow file'); // a folder, a pipe (which would block the read forever), an empty file
  } catch (error) {
    if (error instanceof LocalFileError) throw new UsageError(error.message);
    throw error;
  }
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new UsageError(`Cannot read the workflow file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
  if (imageFormatOf(bytes) !== null) {
    let embedded;
    try {
      embedded = readEmbeddedWorkflow(bytes);
    } catch (error) {
      if (error instanceof EmbeddedWorkflowError) throw new UsageError(`${path}: ${error.message}`);
      throw error;
    }
    if (embedded.prompt) return { prompt: apiPrompt(embedded.prompt, path, 'the embedded "prompt": '), uiWorkflow: embedded.workflow, origin: 'image-prompt', warnings: [] };
    if (embedded.workflow) {
      const { prompt, warnings } = await convert(embedded.workflow, path, definitions, 'the embedded "workflow" ');
      return { prompt, uiWorkflow: embedded.workflow, origin: 'image-workflow', warnings };
    }
    throw new UsageError(`${path}: the image carries no workflow (neither a "prompt" nor a "workflow" chunk).`);
  }
  let value: JsonValue;
  try {
    value = parseJsonExact(bytes.toString('utf8'));
  } catch (error) {
    throw new UsageError(`${path}: The workflow is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (isUiWorkflow(value)) {
    const { prompt, warnings } = await convert(value, path, definitions, 'this UI-format workflow ');
    return { prompt, uiWorkflow: value, origin: 'ui', warnings };
  }
  return { prompt: apiPrompt(value, path, ''), uiWorkflow: null, origin: 'api', warnings: [] };
}

// Reading a workflow file for a CLI command (what it holds is told by workflow/workflow-reading.ts,
// as for the app): API-format JSON as is; a UI-format graph converted with the server's node
// definitions; an output image by its embedded `prompt` (exactly what ran), else its embedded
// `workflow`. Unreadable or unconvertible input is a usage error (exit 2).
import { readFile } from 'node:fs/promises';
import type { JsonObject } from '@shared/json';
import type { NodeDefinitions } from '@main/service/object-info';
import type { Workflow } from '@main/service/types';
import { checkUploadFile, LocalFileError } from '@main/files/local-input';
import { UiConversionError } from '@main/workflow/convert-ui';
import { UI_FORMAT_EXPLANATION } from '@main/workflow/parse';
import { readWorkflowBytes, type WorkflowSource } from '@main/workflow/workflow-reading';
import { UsageError } from './errors';

export interface WorkflowFile {
  /** The API prompt to run. */
  prompt: Workflow;
  /** The editor graph the prompt comes from (a UI file, or an image's `workflow` chunk), else null. */
  uiWorkflow: JsonObject | null;
  /** How the prompt was obtained. */
  origin: WorkflowSource;
  /** Conversion notes (a Reroute chain that ends nowhere, ...). */
  warnings: string[];
}

/** Where the node definitions come from when a UI graph must be converted; called at most once, only then. */
export type DefinitionsSource = () => Promise<NodeDefinitions>;

/** A UI graph that cannot become an API prompt (missing classes, a cycle, ...): exit 2, with the classes listed. */
export class WorkflowConversionError extends UsageError {
  readonly missingClasses: string[];
  constructor(message: string, cause: UiConversionError) {
    super(message);
    this.name = 'WorkflowConversionError';
    this.missingClasses = cause.missingClasses;
  }
}

/** How each source is named in a message about it. */
const WHAT: Record<WorkflowSource, string> = {
  api: '',
  ui: 'this UI-format workflow ',
  'image-prompt': 'the embedded "prompt" ',
  'image-workflow': 'the embedded "workflow" ',
};

export interface ReadOptions {
  /** An editor graph with nothing to run converts to `{}` with a warning saying why (`convert`), instead of an error (`run`). */
  acceptEmpty?: boolean;
}

export async function readWorkflowFile(path: string, definitions?: DefinitionsSource, options: ReadOptions = {}): Promise<WorkflowFile> {
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
  // The definitions are asked for only when an editor graph must be converted; why they could not
  // be had (no key: exit 3; no answer: exit 5) is the error the command fails with.
  const asked: { failed: boolean; error?: unknown } = { failed: false };
  const source = {
    cached: () => null,
    wait: async () => {
      if (!definitions) return null;
      try {
        return await definitions();
      } catch (error) {
        asked.failed = true;
        asked.error = error;
        return null;
      }
    },
  };
  const reading = await readWorkflowBytes(bytes, source);
  switch (reading.kind) {
    case 'workflow': {
      // A value no file holds is fatal only when the server cannot do without it (required, no default).
      const required = (reading.unknowable ?? []).filter((input) => input.required);
      if (required.length > 0) {
        const listed = required.map((input) => `node ${input.nodeId} (${input.classType}) input "${input.input}": ${input.why}`).join('; ');
        throw new UsageError(
          `${path}: ${WHAT[reading.source]}needs ${required.length === 1 ? 'a value' : 'values'} that no file can hold, and the server requires ${required.length === 1 ? 'it' : 'them'}: ${listed}. Queue it from the editor, or save the API prompt the editor queued and use that.`,
        );
      }
      return { prompt: reading.workflow, uiWorkflow: reading.graph, origin: reading.source, warnings: reading.warnings };
    }
    case 'invalid_json':
      throw new UsageError(`${path}: The workflow is not valid JSON: ${reading.detail}`);
    case 'not_a_workflow':
      throw new UsageError(`${path}: ${reading.message}`);
    case 'definitions_missing':
      if (asked.failed) throw asked.error;
      throw new UsageError(`${path}: ${WHAT[reading.source]}${UI_FORMAT_EXPLANATION}`);
    case 'converted_unrunnable':
      if (reading.empty && options.acceptEmpty)
        return { prompt: {}, uiWorkflow: reading.empty.graph, origin: reading.source, warnings: [...reading.empty.warnings, reading.message] };
      throw new UsageError(`${path}: ${WHAT[reading.source]}converts to an API prompt that cannot run: ${reading.message}`);
    case 'conversion_failed':
      if (reading.error instanceof UiConversionError)
        throw new WorkflowConversionError(`${path}: ${WHAT[reading.source]}cannot be converted to the API format. ${reading.error.message}`, reading.error);
      throw reading.error;
  }
}

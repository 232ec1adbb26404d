// The open workflow: its file, the drafts typed into the form, and the problems found before or
// after submitting (a problem names a node and, when known, the input).
import { SvelteMap } from 'svelte/reactivity';
import type { WorkflowParseView } from '@shared/ipc/contract';
import { isJsonObject, parseJsonExact, type JsonObject } from '@shared/json';
import { fieldKey, type Draft } from '../workflow/drafts';

export interface Notice {
  tone: 'error' | 'info';
  title: string;
  message: string;
}

export interface UploadedImage {
  /** What went into the workflow input. */
  value: string;
  /** Data URL (from main) or an object URL of the picked file. */
  thumbnail: string | null;
  ownsUrl: boolean;
  /** The picked file, so "Paint mask" can open it without asking the server. */
  file?: File;
}

export class OpenDocument {
  readonly name: string;
  readonly path: string | null;
  readonly workflow: JsonObject;
  readonly drafts = new SvelteMap<string, Draft>();
  /** Field key -> why the value cannot be run (from the form's checks or the server's 400). */
  readonly fieldErrors = new SvelteMap<string, string>();
  /** Node id -> a problem of the node as a whole (unknown class, a rejection without an input). */
  readonly nodeErrors = new SvelteMap<string, string>();
  readonly uploads = new SvelteMap<string, UploadedImage>();

  /**
   * The editor graph the workflow came from (a UI file, an image's workflow chunk), as exact JSON
   * text: sent with the run so a local server's outputs open again in its editor.
   */
  readonly uiWorkflowJson: string | null;

  constructor(name: string, path: string | null, workflow: JsonObject, uiWorkflowJson: string | null = null) {
    this.name = name;
    this.path = path;
    this.workflow = workflow;
    this.uiWorkflowJson = uiWorkflowJson;
  }

  setDraft(nodeId: string, input: string, draft: Draft): void {
    const key = fieldKey(nodeId, input);
    this.drafts.set(key, draft);
    this.fieldErrors.delete(key);
  }

  clearProblems(): void {
    this.fieldErrors.clear();
    this.nodeErrors.clear();
  }

  dispose(): void {
    for (const upload of this.uploads.values()) if (upload.ownsUrl && upload.thumbnail) URL.revokeObjectURL(upload.thumbnail);
    this.uploads.clear();
  }
}

/** What opening a file led to: a document, or a notice explaining why not. */
export function interpretParse(name: string, path: string | null, parse: WorkflowParseView): OpenDocument | Notice {
  switch (parse.format) {
    case 'api':
    case 'ui':
    case 'image': {
      const value = parseJsonExact(parse.workflowJson);
      if (!isJsonObject(value)) return { tone: 'error', title: 'Not a workflow', message: 'The file does not hold a workflow object.' };
      return new OpenDocument(name, path, value, parse.uiWorkflowJson ?? null);
    }
    case 'conversion_failed':
      return { tone: 'error', title: 'The UI-format workflow could not be converted', message: parse.message };
    case 'invalid_json': {
      // Main's message already says where when it knows.
      const where =
        parse.position && !parse.message.includes(`line ${parse.position.line}`) ? ` (line ${parse.position.line}, column ${parse.position.column})` : '';
      return { tone: 'error', title: 'Not valid JSON', message: `${parse.message}${where}` };
    }
    case 'not_a_workflow':
      return { tone: 'error', title: 'Not a workflow', message: parse.message };
  }
}

/** What to tell the user about a workflow that opened: where it came from, and the conversion's warnings. */
export function openedNotice(name: string, parse: WorkflowParseView): Notice | null {
  if (parse.format !== 'ui' && parse.format !== 'image') return null;
  const warnings = parse.warnings ?? [];
  const origin =
    parse.format === 'image'
      ? `The workflow was read from the image "${name}".`
      : `"${name}" is a UI-format workflow; it was converted with the active server's node definitions.`;
  const message = warnings.length > 0 ? `${origin}\n${warnings.join('\n')}` : origin;
  return { tone: 'info', title: warnings.length > 0 ? 'Opened, with warnings' : 'Workflow opened', message };
}

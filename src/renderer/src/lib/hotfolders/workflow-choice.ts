// What opening a workflow file for a hot folder led to: the workflow's exact JSON text and name,
// nothing (the dialog was closed), or why the file cannot be used (the Run view's own wording).
import type { CallResult } from '@shared/ipc/contract';
import { interpretParse, OpenDocument } from '../stores/workflow.svelte';

export type WorkflowChoice =
  /** uiWorkflowJson: the editor graph it came from, when there is one (its extra.linearData is the app). */
  | { kind: 'chosen'; workflowJson: string; name: string; unknownClasses: string[]; uiWorkflowJson: string | null }
  | { kind: 'cancelled' }
  | { kind: 'problem'; message: string };

/** Longest workflow name hotFolders.save keeps. */
const MAX_NAME = 255;

export function workflowChoiceFrom(result: CallResult<'workflow.open'>): WorkflowChoice {
  if (!result.opened || !result.parse) return { kind: 'cancelled' };
  const name = (result.name ?? 'workflow').slice(0, MAX_NAME);
  const parse = result.parse;
  if (parse.format === 'api' || parse.format === 'ui' || parse.format === 'image') {
    const unknownClasses = (parse.unknownClasses ?? []).map((u) => `${u.nodeId} (${u.classType})`);
    return { kind: 'chosen', workflowJson: parse.workflowJson, name, unknownClasses, uiWorkflowJson: parse.uiWorkflowJson ?? null };
  }
  const outcome = interpretParse(name, result.path, parse);
  if (outcome instanceof OpenDocument) return { kind: 'problem', message: 'The file could not be read as a workflow.' };
  return { kind: 'problem', message: `${outcome.title}: ${outcome.message}` };
}

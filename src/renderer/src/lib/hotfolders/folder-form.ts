// The add/edit form of a hot folder as plain data: its starting values (a new folder or an existing
// one), the checks made before asking main, and the hotFolders.save input it becomes. Main checks
// everything again (rules, overlapping folders); these checks only catch what is plainly missing.
import type { HotFolderSaveInput, HotFolderView, RunOn } from '@shared/ipc/hot-folders-contract';

export const DEFAULT_OUTPUT_NAME = '{stem}_{node}_{index}.{ext}';
export const DEFAULT_MASK_RULE = '{stem}.mask.png';
export const DEFAULT_CONCURRENCY = 2;

export interface FolderDraft {
  name: string;
  inputDir: string;
  outputDir: string;
  recursive: boolean;
  /** The workflow as exact JSON text; null until one is chosen. */
  workflowJson: string | null;
  workflowName: string | null;
  /** NODE.INPUT; '' until chosen. */
  bind: string;
  /** '' means no masks. */
  maskRule: string;
  outputName: string;
  concurrency: number;
  processed: 'leave' | 'move';
  /** The active server, or the pool set in Servers. */
  runOn: RunOn;
}

export type DraftField = keyof FolderDraft;
export type FieldProblems = Partial<Record<DraftField, string>>;

export function newDraft(): FolderDraft {
  return {
    name: '',
    inputDir: '',
    outputDir: '',
    recursive: false,
    workflowJson: null,
    workflowName: null,
    bind: '',
    maskRule: DEFAULT_MASK_RULE,
    outputName: DEFAULT_OUTPUT_NAME,
    concurrency: DEFAULT_CONCURRENCY,
    processed: 'leave',
    runOn: 'active',
  };
}

export function draftOf(folder: HotFolderView): FolderDraft {
  return {
    name: folder.name,
    inputDir: folder.inputDir,
    outputDir: folder.outputDir,
    recursive: folder.recursive,
    workflowJson: folder.workflowJson,
    workflowName: folder.workflowName,
    bind: folder.bind,
    maskRule: folder.maskRule ?? '',
    outputName: folder.outputName,
    concurrency: folder.concurrency,
    processed: folder.processed,
    runOn: folder.runOn,
  };
}

export type SaveRequest = { ok: true; input: HotFolderSaveInput } | { ok: false; problems: FieldProblems };

/**
 * The save input, or what is missing in plain words. `existing`: the folder being edited (its id,
 * and its file patterns, which this form does not edit, are kept).
 */
export function toSaveInput(draft: FolderDraft, existing: HotFolderView | null): SaveRequest {
  const problems: FieldProblems = {};
  const inputDir = draft.inputDir.trim();
  const outputDir = draft.outputDir.trim();
  if (!inputDir) problems.inputDir = 'Give the folder to watch.';
  if (!outputDir) problems.outputDir = 'Give the folder the outputs go to.';
  if (inputDir && outputDir && inputDir === outputDir)
    problems.outputDir = 'The output folder must differ from the input folder (outputs would be taken as new inputs).';
  if (draft.workflowJson === null) problems.workflowJson = 'Choose the workflow each file runs through.';
  else if (!draft.bind) problems.bind = 'Choose the image input that receives each file.';
  if (!Number.isInteger(draft.concurrency) || draft.concurrency < 1 || draft.concurrency > 64)
    problems.concurrency = 'Jobs at once must be a whole number from 1 to 64.';
  const outputName = draft.outputName.trim();
  if (!outputName) problems.outputName = `Give a naming rule for the outputs (for example ${DEFAULT_OUTPUT_NAME}).`;
  if (Object.keys(problems).length > 0 || draft.workflowJson === null) return { ok: false, problems };

  const name = draft.name.trim();
  const maskRule = draft.maskRule.trim();
  return {
    ok: true,
    input: {
      ...(existing ? { id: existing.id, patterns: existing.patterns } : {}),
      ...(name ? { name } : {}),
      inputDir,
      outputDir,
      recursive: draft.recursive,
      workflowJson: draft.workflowJson,
      workflowName: draft.workflowName,
      bind: draft.bind,
      maskRule: maskRule === '' ? null : maskRule,
      outputName,
      concurrency: draft.concurrency,
      processed: draft.processed,
      runOn: draft.runOn,
    },
  };
}

const FIELD_BY_SAVE_KEY: Readonly<Record<string, DraftField>> = {
  name: 'name',
  inputDir: 'inputDir',
  outputDir: 'outputDir',
  recursive: 'recursive',
  workflowJson: 'workflowJson',
  workflowName: 'workflowJson',
  bind: 'bind',
  maskRule: 'maskRule',
  outputName: 'outputName',
  concurrency: 'concurrency',
  processed: 'processed',
  runOn: 'runOn',
};

/** Main's invalid_input issues (path "inputDir", ...) placed on the form's fields; the rest stay general. */
export function problemsFromIssues(issues: readonly { path: string; message: string }[]): { fields: FieldProblems; general: string[] } {
  const fields: FieldProblems = {};
  const general: string[] = [];
  for (const issue of issues) {
    const field = FIELD_BY_SAVE_KEY[issue.path.split('.')[0] ?? ''];
    if (field && !fields[field]) fields[field] = issue.message;
    else if (!field) general.push(issue.message);
  }
  return { fields, general };
}

/** The problems still worth showing: those of fields unchanged since they were found (typing clears a field's mark). */
export function standingProblems(problems: FieldProblems, checked: FolderDraft | null, draft: FolderDraft): FieldProblems {
  if (!checked) return {};
  const standing: FieldProblems = {};
  for (const [field, message] of Object.entries(problems) as [DraftField, string | undefined][]) {
    if (message && checked[field] === draft[field]) standing[field] = message;
  }
  return standing;
}

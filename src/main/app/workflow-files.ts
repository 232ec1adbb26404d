// Opening and parsing workflow files for the renderer: API format accepted (as exact JSON text),
// a UI-format export recognised and explained, invalid JSON reported with line and column, and
// classes unknown to the active server listed. The recent list lives in settings.
import { stat, readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { WorkflowParseView } from '../../shared/ipc/contract';
import { stringifyJsonExact } from '../../shared/json';
import type { SettingsStore } from '../config/settings';
import { parseWorkflowText, unknownClasses } from '../workflow/parse';
import { AppFailure } from './errors';

const MAX_WORKFLOW_BYTES = 50 * 1024 * 1024;
const MAX_RECENT = 20;

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

export function parseWorkflowView(text: string, known: { has(name: string): boolean } | null): WorkflowParseView {
  // A byte-order mark is common in files saved by Windows editors; it is not an error.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const parsed = parseWorkflowText(body);
  if (parsed.ok) {
    return {
      format: 'api',
      workflowJson: stringifyJsonExact(parsed.workflow),
      nodeCount: parsed.nodeCount,
      unknownClasses: known ? unknownClasses(parsed.workflow, known) : null,
    };
  }
  switch (parsed.reason) {
    case 'ui_format':
      return { format: 'ui', message: parsed.message };
    case 'invalid_json': {
      const match = /at position (\d+)/.exec(parsed.message);
      const position = match?.[1] !== undefined ? positionOf(body, Number(match[1])) : null;
      const where = position ? ` (line ${position.line}, column ${position.column})` : '';
      return { format: 'invalid_json', message: `${parsed.message}${where}`, position };
    }
    case 'not_a_workflow':
      return { format: 'not_a_workflow', message: parsed.message };
  }
}

export async function readWorkflowFile(path: string): Promise<{ path: string; name: string; text: string }> {
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
  if (size > MAX_WORKFLOW_BYTES) throw new AppFailure('invalid_input', `The workflow file ${full} is larger than 50 MB; that is not a workflow.`);
  return { path: full, name: basename(full), text: await readFile(full, 'utf8') };
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

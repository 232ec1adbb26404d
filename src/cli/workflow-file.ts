// Reading a workflow file for a CLI command: unreadable or invalid input is a usage error (exit 2).
import { readFile } from 'node:fs/promises';
import type { Workflow } from '../main/service/types';
import { checkUploadFile, LocalFileError } from '../main/files/local-input';
import { parseWorkflowText } from '../main/workflow/parse';
import { UsageError } from './errors';

export async function readWorkflowFile(path: string): Promise<Workflow> {
  let text: string;
  try {
    checkUploadFile(path, 'workflow file'); // a folder, a pipe (which would block the read forever), an empty file
  } catch (error) {
    if (error instanceof LocalFileError) throw new UsageError(error.message);
    throw error;
  }
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the workflow file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
  const parsed = parseWorkflowText(text);
  if (!parsed.ok) throw new UsageError(`${path}: ${parsed.message}`);
  return parsed.workflow;
}

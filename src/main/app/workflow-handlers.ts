// workflow.open / parse / recent: reading a workflow file (dialog, recent list, dropped text, or
// any path in the harness) and saying what it is, with the classes the server does not know.
import type { CallHandlers } from '../../shared/ipc/contract';
import type { SettingsStore } from '../config/settings';
import type { FileDialogs } from './core';
import { AppFailure } from './errors';
import type { ProfileSession } from './session';
import { isRecentWorkflow, parseWorkflowView, readWorkflowFile, recentWorkflows, rememberWorkflow } from './workflow-files';

/** How long workflow.parse waits for node definitions to list unknown classes. */
const DEFINITIONS_WAIT_MS = 3000;

export interface WorkflowHandlerContext {
  settings: SettingsStore;
  dialogs: FileDialogs | null;
  /** Accept any path the renderer names (harness, tests); otherwise only the recent list's. */
  allowAnyPath: boolean;
  /** The active session, if any: its node definitions mark unknown classes. */
  session(): ProfileSession | null;
}

export function createWorkflowHandlers(ctx: WorkflowHandlerContext): Pick<CallHandlers, 'workflow.open' | 'workflow.parse' | 'workflow.recent'> {
  return {
    'workflow.open': async (input) => {
      let file: { path: string | null; name: string; text: string };
      if (input === undefined) {
        if (!ctx.dialogs) throw new AppFailure('invalid_input', 'No file dialog here: give the workflow as a path or as its text.');
        const picked = await ctx.dialogs.openWorkflow();
        if (!picked) return { opened: false, name: null, path: null, parse: null };
        file = await readWorkflowFile(picked);
      } else if ('path' in input) {
        if (!ctx.allowAnyPath && !isRecentWorkflow(ctx.settings, input.path)) {
          throw new AppFailure('invalid_input', 'Only workflows from the recent list can be opened by path; use the file dialog or drop the file.');
        }
        file = await readWorkflowFile(input.path);
      } else {
        file = { path: null, name: input.name, text: input.text };
      }
      if (file.path) rememberWorkflow(ctx.settings, file.path);
      const known = ctx.session()?.cachedDefinitions() ?? null;
      return { opened: true, name: file.name, path: file.path, parse: parseWorkflowView(file.text, known) };
    },

    'workflow.parse': async ({ text }) => {
      // Listing unknown classes needs the server's definitions: wait for them briefly.
      const known = (await ctx.session()?.definitionsWithin(DEFINITIONS_WAIT_MS)) ?? null;
      return parseWorkflowView(text, known);
    },

    'workflow.recent': async () => ({ items: recentWorkflows(ctx.settings) }),
  };
}

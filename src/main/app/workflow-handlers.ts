// workflow.open / parse / recent: reading a workflow (dialog, recent list, dropped file, a library
// item, or any path in the harness) and saying what it is: API JSON, UI JSON (converted with the
// active server's definitions) or an image carrying its workflow, with the classes the server lacks.
import type { CallHandlers, WorkflowParseView } from '@shared/ipc/contract';
import type { SettingsStore } from '@main/config/settings';
import type { Library } from '@main/library/library';
import type { FileDialogs } from './ports';
import { sha256Hex } from './app-file-write';
import { AppFailure } from './errors';
import type { ProfileSession } from './session';
import { fixedDefinitions, type DefinitionsSource } from '@main/workflow/workflow-reading';
import {
  isRecentWorkflow,
  readWorkflowFile,
  recentWorkflows,
  rememberWorkflow,
  workflowViewOfBytes,
  workflowViewOfText,
  workflowViewOfValue,
} from './workflow-files';

/** How long workflow.parse waits for node definitions to list unknown classes. */
const DEFINITIONS_WAIT_MS = 3000;
/** How long opening a UI-format workflow waits for them: it cannot be converted without. */
const CONVERSION_DEFINITIONS_WAIT_MS = 15_000;

export interface WorkflowHandlerContext {
  settings: SettingsStore;
  dialogs: FileDialogs | null;
  /** Accept any path the renderer names (harness, tests); otherwise only the recent list's. */
  allowAnyPath: boolean;
  /** The active session, if any: its node definitions mark unknown classes and convert UI workflows. */
  session(): ProfileSession | null;
  /** The library, for "Open workflow" on an item (absent: that way of opening is not offered). */
  requireLibrary?: () => Library;
}

/** The active session's node definitions, for opening a workflow: what is cached, or a wait for them. */
export function sessionDefinitions(session: () => ProfileSession | null): DefinitionsSource {
  return {
    cached: () => session()?.cachedDefinitions() ?? null,
    wait: async () => (await session()?.definitionsWithin(CONVERSION_DEFINITIONS_WAIT_MS)) ?? null,
  };
}

export function createWorkflowHandlers(ctx: WorkflowHandlerContext): Pick<CallHandlers, 'workflow.open' | 'workflow.parse' | 'workflow.recent'> {
  const definitions = sessionDefinitions(() => ctx.session());

  /** A library item's workflow: the one its image carries (with the editor graph), else the one recorded. */
  const openLibraryItem = async (id: number): Promise<{ name: string; parse: WorkflowParseView }> => {
    if (!ctx.requireLibrary) throw new AppFailure('invalid_input', 'There is no library here.');
    const library = ctx.requireLibrary();
    const item = await library.get(id);
    if (!item) throw new AppFailure('not_found', `There is no library item ${id}.`);
    const name = item.workflowName ?? item.file.filename;
    if (item.status === 'done' && item.path && item.mediaKind === 'image') {
      // A file too large or gone falls back to the recorded workflow; what the file says wins otherwise.
      const bytes = await readWorkflowFile(item.path).then(
        (f) => f.bytes,
        () => null,
      );
      const fromFile = bytes ? await workflowViewOfBytes(bytes, definitions) : null;
      if (fromFile?.format === 'image') return { name, parse: fromFile };
    }
    const recorded = await library.workflow(id);
    if (recorded === null) throw new AppFailure('not_found', `${item.file.filename} carries no workflow, and none was recorded with it.`);
    return { name, parse: await workflowViewOfValue(recorded, definitions) };
  };

  return {
    'workflow.open': async (input) => {
      let file: { path: string | null; name: string; bytes: Uint8Array } | { path: null; name: string; text: string };
      if (input === undefined) {
        if (!ctx.dialogs) throw new AppFailure('invalid_input', 'No file dialog here: give the workflow as a path or as its content.');
        const picked = await ctx.dialogs.openWorkflow();
        if (!picked) return { opened: false, name: null, path: null, parse: null };
        file = await readWorkflowFile(picked);
      } else if ('libraryId' in input) {
        const opened = await openLibraryItem(input.libraryId);
        return { opened: true, name: opened.name, path: null, parse: opened.parse };
      } else if ('path' in input) {
        if (!ctx.allowAnyPath && !isRecentWorkflow(ctx.settings, input.path)) {
          throw new AppFailure('invalid_input', 'Only workflows from the recent list can be opened by path; use the file dialog or drop the file.');
        }
        file = await readWorkflowFile(input.path);
      } else if ('bytes' in input) {
        file = { path: null, name: input.name, bytes: input.bytes };
      } else {
        file = { path: null, name: input.name, text: input.text };
      }
      if (file.path) rememberWorkflow(ctx.settings, file.path);
      const parse = 'text' in file ? await workflowViewOfText(file.text, definitions) : await workflowViewOfBytes(file.bytes, definitions);
      // A file from disk: its hash lets an app be saved into it later only while it is unchanged.
      const fileHash = file.path && 'bytes' in file ? { fileHash: sha256Hex(file.bytes) } : {};
      return { opened: true, name: file.name, path: file.path, parse, ...fileHash };
    },

    'workflow.parse': async ({ text }) => {
      // Listing unknown classes (and converting a UI workflow) needs the server's definitions: wait for them briefly.
      const known = (await ctx.session()?.definitionsWithin(DEFINITIONS_WAIT_MS)) ?? null;
      return workflowViewOfText(text, fixedDefinitions(known));
    },

    'workflow.recent': async () => ({ items: recentWorkflows(ctx.settings) }),
  };
}

// apps.get / apps.keep / apps.saveToFile / apps.saveAs: the form as an app, kept. The app of any
// workflow is kept in Flowdeck's own store (app-layout-store.ts; the only place an API file's app
// can live); a UI file's app is saved into the file itself, where the editor finds it too
// (app-file-write.ts), or through the save dialog into a new file. A path from the page is
// accepted only from the recent list, as workflow.open does, unless the transport allows any.
import { resolve } from 'node:path';
import type { CallHandlers } from '@shared/ipc/contract';
import { isJsonObject, parseJsonExact, stringifyJsonExact } from '@shared/json';
import type { SettingsStore } from '@main/config/settings';
import { replaceFileSafely, saveAppIntoFile, sha256Hex, textWithApp } from './app-file-write';
import type { AppLayoutStore } from './app-layout-store';
import { AppFailure } from './errors';
import type { FileDialogs } from './ports';
import { isRecentWorkflow, rememberWorkflow } from './workflow-files';

export interface AppLayoutHandlerContext {
  store: AppLayoutStore;
  settings: SettingsStore;
  dialogs: FileDialogs | null;
  /** Accept any path the page names (harness, tests); otherwise only the recent list's. */
  allowAnyPath: boolean;
}

type AppLayoutCalls = 'apps.get' | 'apps.keep' | 'apps.saveToFile' | 'apps.saveAs';

export function createAppLayoutHandlers(ctx: AppLayoutHandlerContext): Pick<CallHandlers, AppLayoutCalls> {
  return {
    'apps.get': async (key) => ctx.store.get(key),

    'apps.keep': async ({ key, inputs }) => ({ savedAt: await ctx.store.keep(key, inputs) }),

    'apps.saveToFile': async ({ path, fileHash, inputs }) => {
      const full = resolve(path);
      if (!ctx.allowAnyPath && !isRecentWorkflow(ctx.settings, full)) {
        throw new AppFailure('invalid_input', 'Only a workflow opened from a file can be saved into it; use Save as… for this one.');
      }
      const saved = await saveAppIntoFile(full, fileHash, inputs);
      return { path: saved.path, fileHash: saved.fileHash, uiWorkflowJson: saved.text };
    },

    'apps.saveAs': async ({ uiWorkflowJson, suggestedName, inputs }) => {
      if (!ctx.dialogs?.saveWorkflow) throw new AppFailure('invalid_input', 'No save dialog here: the page saves the file as a download instead.');
      let graph;
      try {
        graph = parseJsonExact(uiWorkflowJson);
      } catch {
        throw new AppFailure('invalid_input', 'The workflow to save is not valid JSON.');
      }
      if (!isJsonObject(graph)) throw new AppFailure('invalid_input', 'The workflow to save is not a JSON object.');
      const picked = await ctx.dialogs.saveWorkflow(suggestedName);
      if (!picked) return { saved: false, path: null, fileHash: null, uiWorkflowJson: null };
      const path = resolve(picked);
      // A new file in the editor's own layout (two-space indentation).
      const text = textWithApp(stringifyJsonExact(graph, 2), inputs, 'the workflow');
      await replaceFileSafely(path, text, null);
      rememberWorkflow(ctx.settings, path);
      return { saved: true, path, fileHash: sha256Hex(Buffer.from(text, 'utf8')), uiWorkflowJson: text };
    },
  };
}

// Native file dialogs for workflow.open and upload.image.
import { dialog, type BrowserWindow } from 'electron';
import type { FileDialogs } from '../app/core';

export function createFileDialogs(getWindow: () => BrowserWindow | null): FileDialogs {
  const pick = async (title: string, filters: Electron.FileFilter[]): Promise<string | null> => {
    const win = getWindow();
    const options: Electron.OpenDialogOptions = { title, properties: ['openFile'], filters };
    const result = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
    return result.canceled ? null : (result.filePaths[0] ?? null);
  };
  return {
    openWorkflow: () => pick('Open a workflow (API format)', [{ name: 'Workflow', extensions: ['json'] }, { name: 'All files', extensions: ['*'] }]),
    openImage: () => pick('Choose an image', [{ name: 'Images', extensions: ['png', 'jpg', 'jpeg', 'webp', 'gif', 'bmp'] }]),
  };
}

// Native file dialogs for workflow.open, upload.image, the hot folders' folder pickers and an
// app's "Save as…" (apps.saveAs).
import { dialog, type BrowserWindow } from 'electron';
import type { FileDialogs } from '@main/app/ports';

export function createFileDialogs(getWindow: () => BrowserWindow | null): FileDialogs {
  const show = async (options: Electron.OpenDialogOptions): Promise<string | null> => {
    const win = getWindow();
    const result = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
    return result.canceled ? null : (result.filePaths[0] ?? null);
  };
  const pick = (title: string, filters: Electron.FileFilter[]): Promise<string | null> => show({ title, properties: ['openFile'], filters });
  return {
    openWorkflow: () =>
      pick('Open a workflow', [
        { name: 'Workflows and images carrying one', extensions: ['json', 'png', 'webp'] },
        { name: 'All files', extensions: ['*'] },
      ]),
    openImage: () => pick('Choose an image', [{ name: 'Images', extensions: ['png', 'jpg', 'jpeg', 'webp', 'gif', 'bmp'] }]),
    pickFolder: (title) => show({ title, properties: ['openDirectory', 'createDirectory'] }),
    saveWorkflow: async (suggestedName) => {
      const options: Electron.SaveDialogOptions = {
        title: 'Save the workflow with its app',
        defaultPath: suggestedName,
        filters: [{ name: 'Workflows', extensions: ['json'] }],
        properties: ['createDirectory', 'showOverwriteConfirmation'],
      };
      const win = getWindow();
      const result = win ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
      return result.canceled || !result.filePath ? null : result.filePath;
    },
  };
}

// Native file dialogs for workflow.open, upload.image and the hot folders' folder pickers.
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
  };
}

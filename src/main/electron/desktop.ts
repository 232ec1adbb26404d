// The desktop around the app (DesktopActions of src/main/app/desktop.ts) through Electron's shell
// and notifications: open a file with its default app, show it in the file manager, notify.
import { Notification, shell } from 'electron';
import type { DesktopActions } from '@main/app/desktop';

export function createDesktopActions(): DesktopActions {
  return {
    async openPath(path) {
      // shell.openPath resolves with an error message, empty on success; it never rejects.
      const problem = await shell.openPath(path);
      if (problem !== '') throw new Error(problem);
    },
    async showInFolder(path) {
      shell.showItemInFolder(path);
    },
    notify(title, body) {
      if (!Notification.isSupported()) return;
      new Notification({ title, body }).show();
    },
  };
}

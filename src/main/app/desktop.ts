// What the core asks of the desktop around it: opening files and folders with the system's apps
// and showing notifications. Electron implements it (src/main/electron/desktop.ts); the browser
// harness has none, and the calls that need it say so.
export interface DesktopActions {
  /** Opens a file or folder with the system's default app; rejects with the reason when it cannot. */
  openPath(path: string): Promise<void>;
  /** Shows the file selected in the system's file manager. */
  showInFolder(path: string): Promise<void>;
  /** A system notification (a batch drained, for example). */
  notify(title: string, body: string): void;
}

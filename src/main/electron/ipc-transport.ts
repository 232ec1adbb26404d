// The contract over Electron IPC: one ipcMain.handle per call, answered by the app core (which
// validates and wraps errors), one ipcMain.on per one-way note (validated by the core, never
// answered), and core events sent to the window once the renderer has said it is ready. Messages
// from any frame other than the app window's own main frame showing the app's own page are refused.
import { ipcMain, type BrowserWindow, type IpcMainEvent, type IpcMainInvokeEvent } from 'electron';
import { CALL_NAMES, NOTE_NAMES, READY_CALL, callChannel, eventChannel, noteChannel } from '@shared/ipc/names';
import type { AppCore } from '@main/app/ports';
import { eventKey, type AppEvent } from '@main/app/event-hub';
import { ReadyGate } from '@main/app/ready-gate';
import { isAppUrl } from './protocol';

export function installIpcTransport(core: AppCore, win: BrowserWindow, options: { devUrl?: string | null } = {}): () => void {
  const contents = win.webContents;
  const gate = new ReadyGate<AppEvent>((event) => {
    if (!win.isDestroyed()) contents.send(eventChannel(event.name), event.payload);
  }, eventKey);

  const fromAppFrame = (event: IpcMainInvokeEvent | IpcMainEvent): boolean => {
    const frame = event.senderFrame;
    if (event.sender !== contents || frame === null || frame !== contents.mainFrame) return false;
    return isAppUrl(frame.url) || (options.devUrl ? frame.url.startsWith(options.devUrl) : false);
  };

  for (const name of CALL_NAMES) {
    ipcMain.handle(callChannel(name), async (event, input: unknown) => {
      if (!fromAppFrame(event)) return { ok: false, error: { code: 'invalid_input', message: 'Refused: not the app window.' } };
      const answer = await core.invoke(name, input);
      if (name === READY_CALL && answer.ok) gate.markReady();
      return answer;
    });
  }
  // A note has no answer to carry a refusal: one from another frame is dropped unread.
  const noteHandlers = NOTE_NAMES.map((name) => {
    const handler = (event: IpcMainEvent, input: unknown): void => {
      if (fromAppFrame(event)) core.notify(name, input);
    };
    ipcMain.on(noteChannel(name), handler);
    return { name, handler };
  });
  const offEvents = core.onEvent((event) => gate.push(event));

  // A reload or crash loses the renderer's listeners: hold events until it is ready again.
  const onNavigation = (details: { isMainFrame: boolean; isSameDocument: boolean }): void => {
    if (details.isMainFrame && !details.isSameDocument) gate.reset();
  };
  const onGone = (): void => gate.reset();
  contents.on('did-start-navigation', onNavigation);
  contents.on('render-process-gone', onGone);

  return () => {
    for (const name of CALL_NAMES) ipcMain.removeHandler(callChannel(name));
    for (const { name, handler } of noteHandlers) ipcMain.removeListener(noteChannel(name), handler);
    offEvents();
    if (!contents.isDestroyed()) {
      contents.off('did-start-navigation', onNavigation);
      contents.off('render-process-gone', onGone);
    }
  };
}

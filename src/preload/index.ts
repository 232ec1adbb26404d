// The preload: ONE frozen `window.flowdeck` object built from the contract over ipcRenderer, and
// nothing else (no raw ipcRenderer, no Node). It runs sandboxed, so it imports no npm package at
// runtime: only the contract's name list and the shared bridge builder, both bundled in.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { buildFlowdeckApi, type BridgeTransport } from '@shared/ipc/bridge';
import {
  CALL_NAMES,
  EVENT_NAMES,
  PREVIEW_ACK_NOTE,
  PREVIEW_EVENT,
  callChannel,
  eventChannel,
  isCallName,
  isEventName,
  isNoteName,
  noteChannel,
} from '@shared/ipc/names';

const transport: BridgeTransport = {
  invoke(name, input) {
    if (!isCallName(name)) return Promise.resolve({ ok: false, error: { code: 'invalid_input', message: 'Unknown call.' } });
    return ipcRenderer.invoke(callChannel(name), input);
  },
  notify(name, input) {
    // One-way (ipcMain.on in main): no answer comes back.
    if (isNoteName(name)) ipcRenderer.send(noteChannel(name), input);
  },
  subscribe(name, listener) {
    if (!isEventName(name)) return () => undefined;
    const channel = eventChannel(name);
    // Only the payload reaches the page, never the IpcRendererEvent (it holds `sender`).
    const handler = (_event: IpcRendererEvent, payload: unknown): void => listener(payload);
    ipcRenderer.on(channel, handler);
    return () => {
      ipcRenderer.removeListener(channel, handler);
    };
  },
};

contextBridge.exposeInMainWorld(
  'flowdeck',
  buildFlowdeckApi(transport, { calls: CALL_NAMES, events: EVENT_NAMES, previewEvent: PREVIEW_EVENT, previewAck: PREVIEW_ACK_NOTE }),
);

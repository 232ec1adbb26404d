// The names of every call and event of the renderer <-> main contract, with no runtime
// dependency. The sandboxed preload and the harness's injected bridge script import only this
// file (they cannot load zod), while contract.ts pairs each name with its schemas; a type-level
// test proves the two lists and the schemas stay identical.

export const CALL_NAMES = [
  'profiles.list',
  'profiles.save',
  'profiles.remove',
  'profiles.select',
  'key.status',
  'key.save',
  'key.remove',
  'connection.test',
  'nodes.definitions',
  'workflow.open',
  'workflow.parse',
  'workflow.recent',
  'run.submit',
  'jobs.list',
  'jobs.cancel',
  'jobs.checkAgain',
  'queue.get',
  'queue.cancel',
  'queue.interrupt',
  'queue.clearPending',
  'upload.image',
  'upload.mask',
  'output.fetch',
  'input.fetch',
  'preview.ack',
  'renderer.ready',
  'templates.list',
  'templates.thumbnail',
  'templates.open',
  'library.info',
  'library.list',
  'library.facets',
  'library.get',
  'library.delete',
  'library.retry',
  'library.bytes',
  'library.reveal',
  'library.setFolder',
  'hotFolders.list',
  'hotFolders.save',
  'hotFolders.remove',
  'hotFolders.pause',
  'hotFolders.resume',
  'hotFolders.retryFailed',
  'hotFolders.files',
  'hotFolders.openOutput',
  'dialog.pickFolder',
  'history.list',
  'pool.get',
  'pool.save',
  'pool.queues',
  'pool.status',
  'apps.get',
  'apps.keep',
  'apps.saveToFile',
  'apps.saveAs',
] as const;

export const EVENT_NAMES = [
  'connection.state',
  'job.update',
  'job.preview',
  'queue.changed',
  'profiles.changed',
  'library.changed',
  'hotFolders.changed',
  'hotFolders.file',
  'hotFolders.drained',
  'pool.status',
  'pool.changed',
  'app.notice',
] as const;

export type CallName = (typeof CALL_NAMES)[number];
export type EventName = (typeof EVENT_NAMES)[number];

/** The note whose acknowledgement releases the next preview frame of a job (see bridge.ts). */
export const PREVIEW_ACK_NOTE = 'preview.ack' satisfies CallName;
/**
 * One-way notes, page -> core: each is a call of the contract (its input schema checks the note),
 * sent without waiting for an answer and never answered (BridgeTransport.notify).
 */
export const NOTE_NAMES = [PREVIEW_ACK_NOTE] as const satisfies readonly CallName[];
type NoteName = (typeof NOTE_NAMES)[number];
export const PREVIEW_EVENT = 'job.preview' satisfies EventName;
export const READY_CALL = 'renderer.ready' satisfies CallName;

/** Electron IPC channel of a call (one ipcMain.handle per call). */
export function callChannel(name: CallName): string {
  return `flowdeck:call:${name}`;
}

/** Electron IPC channel of a note (one ipcMain.on per note, renderer -> main, no answer). */
export function noteChannel(name: NoteName): string {
  return `flowdeck:note:${name}`;
}

/** Electron IPC channel of an event (main -> renderer). */
export function eventChannel(name: EventName): string {
  return `flowdeck:event:${name}`;
}

export function isCallName(value: unknown): value is CallName {
  return typeof value === 'string' && (CALL_NAMES as readonly string[]).includes(value);
}

export function isNoteName(value: unknown): value is NoteName {
  return typeof value === 'string' && (NOTE_NAMES as readonly string[]).includes(value);
}

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && (EVENT_NAMES as readonly string[]).includes(value);
}

/** Browser harness: the window event its socket transport raises when the link to the core drops or returns ({ up }). */
export const CORE_LINK_EVENT = 'flowdeck:core-link';

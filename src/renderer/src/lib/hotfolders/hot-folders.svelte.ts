// The hot folders the app runs: the folder list kept live by hotFolders.changed, the files of the
// selected folder kept live by hotFolders.file, the folder actions, and a notice (plus a system
// notification when the page may show one) each time a folder's batch drains.
import { SvelteMap } from 'svelte/reactivity';
import type { HotFileView, HotFolderSaveInput, HotFolderView } from '@shared/ipc/hot-folders-contract';
import { messageOf, type Api } from '../api';
import { mergeFileRow, sortedFileRows } from './file-rows';
import { drainedText } from './folder-text';
import type { NoticeCentre } from '../ui/notices.svelte';

/** The notice subject of a hot folder's batch summaries. */
export function hotFolderSubject(folderId: string): string {
  return `hot-folder:${folderId}`;
}

export class HotFoldersStore {
  folders = $state.raw<HotFolderView[]>([]);
  loaded = $state(false);
  selectedId = $state<string | null>(null);
  /** Path -> row, for the selected folder only. */
  readonly files = new SvelteMap<string, HotFileView>();
  filesLoading = $state(false);
  /** A failed list or folder action, in plain words. */
  error = $state<string | null>(null);
  /** Folder ids with an action under way (buttons disabled meanwhile). */
  readonly busy = new SvelteMap<string, true>();

  selected = $derived(this.folders.find((f) => f.id === this.selectedId) ?? null);
  fileRows = $derived(sortedFileRows(this.files.values()));

  readonly #api: Api;
  readonly #notices: NoticeCentre;
  #filesGeneration = 0;

  constructor(api: Api, notices: NoticeCentre) {
    this.#api = api;
    this.#notices = notices;
  }

  attach(): () => void {
    const offs = [
      this.#api.on('hotFolders.changed', (folder) => this.#upsert(folder)),
      this.#api.on('hotFolders.file', (file) => {
        if (file.folderId === this.selectedId) mergeFileRow(this.files, file);
      }),
      this.#api.on('hotFolders.drained', ({ folderId, name, counters }) => this.#notifyDrained(folderId, drainedText(name, counters))),
    ];
    return () => {
      for (const off of offs) off();
    };
  }

  async load(): Promise<void> {
    try {
      const { folders } = await this.#api.call('hotFolders.list');
      this.#replace(folders);
      this.error = null;
    } catch (error) {
      this.error = `The hot folders could not be listed: ${messageOf(error)}`;
    } finally {
      this.loaded = true;
    }
  }

  /** Shows a folder's files: the listing, then live events (a newer event row wins over the listing). */
  async select(id: string | null): Promise<void> {
    if (id === this.selectedId && (id === null || this.files.size > 0 || this.filesLoading)) return;
    const generation = ++this.#filesGeneration;
    this.selectedId = id;
    this.files.clear();
    if (id === null) return;
    this.filesLoading = true;
    try {
      const { files } = await this.#api.call('hotFolders.files', { id });
      if (generation !== this.#filesGeneration) return;
      for (const file of files) mergeFileRow(this.files, file);
    } catch (error) {
      if (generation === this.#filesGeneration) this.error = `The files of this folder could not be listed: ${messageOf(error)}`;
    } finally {
      if (generation === this.#filesGeneration) this.filesLoading = false;
    }
  }

  /** Adds or edits a folder; throws main's error so the form can show it next to what was typed. */
  async save(input: HotFolderSaveInput): Promise<HotFolderView> {
    const folder = await this.#api.call('hotFolders.save', input);
    this.#upsert(folder);
    if (this.selectedId === null || input.id === undefined) await this.select(folder.id);
    return folder;
  }

  remove(id: string): Promise<void> {
    return this.#act(id, async () => {
      const { folders } = await this.#api.call('hotFolders.remove', { id });
      this.#replace(folders);
    });
  }

  pause(id: string): Promise<void> {
    return this.#act(id, async () => this.#upsert(await this.#api.call('hotFolders.pause', { id })));
  }

  resume(id: string): Promise<void> {
    return this.#act(id, async () => this.#upsert(await this.#api.call('hotFolders.resume', { id })));
  }

  retryFailed(id: string): Promise<void> {
    return this.#act(id, async () => {
      await this.#api.call('hotFolders.retryFailed', { id });
    });
  }

  openOutput(id: string): Promise<void> {
    return this.#act(id, async () => {
      await this.#api.call('hotFolders.openOutput', { id });
    });
  }

  /** The native folder picker; null when cancelled. Throws where there is none (the browser harness). */
  async pickFolder(title: string): Promise<string | null> {
    return (await this.#api.call('dialog.pickFolder', { title })).path;
  }

  async #act(id: string, action: () => Promise<void>): Promise<void> {
    this.busy.set(id, true);
    this.error = null;
    try {
      await action();
    } catch (error) {
      const name = this.folders.find((f) => f.id === id)?.name ?? 'the hot folder';
      this.error = `${name}: ${messageOf(error)}`;
    } finally {
      this.busy.delete(id);
    }
  }

  #upsert(folder: HotFolderView): void {
    const at = this.folders.findIndex((f) => f.id === folder.id);
    this.folders = at < 0 ? [...this.folders, folder] : this.folders.map((f, i) => (i === at ? folder : f));
  }

  #replace(folders: HotFolderView[]): void {
    this.folders = folders;
    const keep = this.selectedId !== null && folders.some((f) => f.id === this.selectedId) ? this.selectedId : (folders[0]?.id ?? null);
    if (keep !== this.selectedId) void this.select(keep);
  }

  #notifyDrained(folderId: string, text: string): void {
    // One notice per folder: a new batch's summary replaces the previous one.
    this.#notices.post({ subject: hotFolderSubject(folderId), tone: 'success', title: text });
    // In the desktop app main shows the system notification itself; in a browser (the harness) the
    // page shows one, only where the user already allowed them: never prompt from here.
    const desktop = /\bElectron\//.test(navigator.userAgent);
    if (!desktop && typeof Notification !== 'undefined' && Notification.permission === 'granted') {
      try {
        new Notification('Flowdeck', { body: text, tag: `hot-folder-${folderId}` });
      } catch (error) {
        console.warn('flowdeck: the system notification could not be shown', error);
      }
    }
  }
}

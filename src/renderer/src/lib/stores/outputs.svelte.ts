// Output files of finished jobs, fetched through the contract (output.fetch) and shown from blob
// URLs. Each file is fetched once; a failed fetch is kept as a message on that file.
import { SvelteMap } from 'svelte/reactivity';
import type { OutputFileView } from '@shared/ipc/contract';
import { messageOf, type Api } from '../api';

export type MediaKind = 'image' | 'video' | 'audio' | 'file';

export type OutputState =
  | { status: 'loading'; file: OutputFileView }
  | { status: 'ready'; file: OutputFileView; url: string; mime: string; kind: MediaKind }
  | { status: 'failed'; file: OutputFileView; message: string };

export function outputKey(file: OutputFileView): string {
  return [file.node, file.type, file.subfolder, file.filename].join('\u0000');
}

function mediaKind(mime: string, filename: string): MediaKind {
  const m = mime.toLowerCase();
  if (m.startsWith('image/')) return 'image';
  if (m.startsWith('video/')) return 'video';
  if (m.startsWith('audio/')) return 'audio';
  // Some servers answer application/octet-stream: fall back to the extension.
  const ext = filename.toLowerCase().split('.').pop() ?? '';
  if (['png', 'jpg', 'jpeg', 'webp', 'gif'].includes(ext)) return 'image';
  if (['mp4', 'webm', 'mov', 'mkv'].includes(ext)) return 'video';
  if (['wav', 'mp3', 'ogg', 'flac', 'opus', 'm4a'].includes(ext)) return 'audio';
  return 'file';
}

export class OutputStore {
  /** promptId -> output key -> state */
  readonly byJob = new SvelteMap<string, SvelteMap<string, OutputState>>();
  readonly #api: Api;

  constructor(api: Api) {
    this.#api = api;
  }

  /** Fetches every file of a job not fetched yet. */
  ensure(promptId: string, files: readonly OutputFileView[]): void {
    let states = this.byJob.get(promptId);
    if (!states) {
      states = new SvelteMap();
      this.byJob.set(promptId, states);
    }
    for (const file of files) {
      const key = outputKey(file);
      if (states.has(key)) continue;
      states.set(key, { status: 'loading', file });
      void this.#fetch(promptId, file, states, key);
    }
  }

  release(promptId: string): void {
    for (const state of this.byJob.get(promptId)?.values() ?? []) if (state.status === 'ready') URL.revokeObjectURL(state.url);
    this.byJob.delete(promptId);
  }

  async #fetch(promptId: string, file: OutputFileView, states: SvelteMap<string, OutputState>, key: string): Promise<void> {
    try {
      const { mime, bytes } = await this.#api.call('output.fetch', {
        promptId,
        file: { filename: file.filename, subfolder: file.subfolder, type: file.type },
      });
      // Released while it was fetched (its card went): an object URL made now would never be revoked.
      if (this.byJob.get(promptId) !== states) return;
      const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime }));
      states.set(key, { status: 'ready', file, url, mime, kind: mediaKind(mime, file.filename) });
    } catch (error) {
      if (this.byJob.get(promptId) !== states) return;
      states.set(key, { status: 'failed', file, message: messageOf(error) });
    }
  }
}

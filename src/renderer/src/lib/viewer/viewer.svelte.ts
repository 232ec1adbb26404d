// The image viewer's state: which outputs it shows (a job's, a history entry's or the library's),
// which one is current, and the job's input image to compare with. Any thumbnail opens it with
// `viewer.open(items, index)`; the dialog (components/viewer/ImageViewer.svelte) is mounted once.
import type { FileRefView } from '@shared/ipc/contract';
import type { MediaKind } from '../stores/outputs.svelte';

/** How the output is set against the job's input image. */
export type CompareMode = 'off' | 'side' | 'slider';

export interface ViewerBytes {
  bytes: Uint8Array;
  mime: string;
}

export interface ViewerItem {
  name: string;
  /** A URL the opener keeps alive while the viewer is open (a blob URL or the library's media URL). */
  url: string;
  kind: MediaKind;
  /** The file's bytes, for copy, "Use as input" and "Paint mask". */
  load: () => Promise<ViewerBytes>;
  /** Set for library items: "Show in folder" and uploads by library id. */
  libraryId: number | null;
  /** Set for a job's output still on its server: the mask painter names it instead of uploading. */
  output: { promptId: string; file: FileRefView } | null;
  /** The job's input image, when the job had one. */
  input: { name: string; load: () => Promise<ViewerBytes> } | null;
}

/** `index` moved by `delta` among `count` items, wrapping around both ends. */
export function stepIndex(index: number, delta: number, count: number): number {
  if (count <= 0) return 0;
  return (((index + delta) % count) + count) % count;
}

export class ViewerStore {
  items = $state.raw<readonly ViewerItem[]>([]);
  index = $state(0);
  isOpen = $state(false);
  current = $derived(this.isOpen ? (this.items[this.index] ?? null) : null);

  open(items: readonly ViewerItem[], index: number): void {
    if (items.length === 0) return;
    this.items = items;
    this.index = Math.max(0, Math.min(items.length - 1, index));
    this.isOpen = true;
  }

  close(): void {
    this.isOpen = false;
    this.items = [];
  }

  /** The next (+1) or previous (-1) output, wrapping around. */
  step(delta: number): void {
    this.index = stepIndex(this.index, delta, this.items.length);
  }
}

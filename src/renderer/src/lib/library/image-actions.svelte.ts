// What the image viewer and the library detail both do with an image: copy it to the clipboard,
// put it into one of the open workflow's image inputs (asking which when there are several), and
// open it in the mask painter.
// One controller for both, so the steps and the words stay the same; each view shows the messages
// in its own place (`say`) and does its own thing once the image is in (`onplaced`).
import type { CallInput, UploadView } from '@shared/ipc/contract';
import { messageOf, type Api } from '../api';
import type { MaskSaveResult, MaskSource } from '../mask/upload';
import type { Navigation } from '../stores/navigation.svelte';
import type { RunStore } from '../stores/run.svelte';
import type { FormField } from '../workflow/form-model';
import { copyImageToClipboard } from './clipboard';

export interface ActionMessage {
  tone: 'error' | 'info';
  text: string;
}

/** An image on its way into an input: its name in messages, its upload, and the thumbnail to show (null: the upload's own). */
export interface PendingInput {
  what: string;
  upload: () => Promise<UploadView>;
  thumbnail: string | null;
}

/** An upload of bytes or of a library file; both always answer (null only answers the file dialog's cancel). */
export async function uploadImage(api: Api, source: Exclude<CallInput<'upload.image'>, undefined | { path: string }>): Promise<UploadView> {
  const answer = await api.call('upload.image', source);
  if (!answer) throw new Error('the app answered no upload.');
  return answer;
}

export class ImageActions {
  /** The action under way ('copy', 'input', 'mask', ...): the buttons wait for it. */
  busy = $state<string | null>(null);
  /** Several image inputs: the view shows the chooser for this one. */
  choosing = $state.raw<(PendingInput & { fields: FormField[] }) | null>(null);
  /** The image open in the mask painter. */
  painting = $state.raw<MaskSource | null>(null);
  /** The painter's last save: offered as an input. */
  masked = $state.raw<MaskSaveResult | null>(null);
  /** A picture of that save (the image with the painted area transparent), for the input's thumbnail. */
  maskedThumbnail = $state<string | null>(null);

  readonly #run: RunStore;
  readonly #nav: Navigation;
  readonly #say: (message: ActionMessage) => void;
  readonly #onplaced: () => void;

  constructor(deps: { run: RunStore; nav: Navigation; say: (message: ActionMessage) => void; onplaced: () => void }) {
    this.#run = deps.run;
    this.#nav = deps.nav;
    this.#say = deps.say;
    this.#onplaced = deps.onplaced;
  }

  async act(label: string, work: () => Promise<void>): Promise<void> {
    this.busy = label;
    try {
      await work();
    } finally {
      this.busy = null;
    }
  }

  /** Call straight from the click (see copyImageToClipboard): the write starts within the gesture. */
  copy(load: () => Promise<{ bytes: Uint8Array; mime: string }>): void {
    void this.act('copy', async () => {
      try {
        await copyImageToClipboard(load);
        this.#say({ tone: 'info', text: 'Copied the image to the clipboard.' });
      } catch (error) {
        this.#say({ tone: 'error', text: `The image could not be copied: ${messageOf(error)}` });
      }
    });
  }

  /**
   * Puts the image into the open workflow: straight away with one image input, else asks which.
   * False when no workflow with an image input is open: the view says so in its own words.
   */
  place(pending: PendingInput): boolean {
    const fields = this.#run.imageFields;
    if (!this.#run.doc || fields.length === 0) return false;
    if (fields.length === 1) void this.into(fields[0]!, pending);
    else this.choosing = { fields, ...pending };
    return true;
  }

  async into(field: FormField, { what, upload, thumbnail }: PendingInput): Promise<void> {
    this.choosing = null;
    await this.act('input', async () => {
      try {
        const result = await upload();
        this.#run.useUploaded(field, result, thumbnail ?? result.thumbnailDataUrl);
        this.#run.notice = { tone: 'info', title: 'Image input set', message: `${what} is now the "${field.name}" input of node ${field.nodeId}.` };
        // The Run view is where the input now shows.
        this.#nav.go('run');
        this.#onplaced();
      } catch (error) {
        this.#say({ tone: 'error', text: `The image could not be used as an input: ${messageOf(error)}` });
      }
    });
  }

  paint(source: () => Promise<MaskSource>): void {
    void this.act('mask', async () => {
      try {
        this.masked = null;
        this.painting = await source();
      } catch (error) {
        this.#say({ tone: 'error', text: `The image could not be opened in the mask painter: ${messageOf(error)}` });
      }
    });
  }

  /** How the input chooser names a node: its id and its display name. */
  nodeName(nodeId: string): string {
    const group = this.#run.groups.find((g) => g.id === nodeId);
    return group ? `${nodeId} ${group.displayName}` : `Node ${nodeId}`;
  }
}

// The template gallery of "New from template": the active server's templates (read each time the
// dialog opens), the search and the chosen category that narrow them (gallery-model.ts), and their
// thumbnails, fetched as their cards come into view and kept while the dialog is open.
import type { TemplateView } from '@shared/ipc/contract';
import { messageOf, type Api } from '../api';
import { ALL_TEMPLATES, ThumbnailQueue, categoriesOf, filterTemplates, type CategoryView } from './gallery-model';

export type GalleryState =
  | { kind: 'loading' }
  | { kind: 'ready' }
  /** The server offers no templates (no templates package, no node pack examples). */
  | { kind: 'none' }
  | { kind: 'error'; message: string };

export class TemplateGalleryStore {
  state = $state<GalleryState>({ kind: 'loading' });
  templates = $state.raw<TemplateView[]>([]);
  /** What could not be read while the rest could. */
  note = $state<string | null>(null);
  query = $state('');
  category = $state(ALL_TEMPLATES);
  /** Thumbnail path -> data: URL; null when the server has none or it could not be read. */
  thumbnails = $state<Record<string, string | null>>({});
  categories: CategoryView[] = $derived(categoriesOf(this.templates));
  shown: TemplateView[] = $derived(filterTemplates(this.templates, this.query, this.category));

  readonly #api: Api;
  readonly #queue: ThumbnailQueue;
  #closed = false;

  constructor(api: Api) {
    this.#api = api;
    this.#queue = new ThumbnailQueue(
      async (path) => {
        try {
          return (await this.#api.call('templates.thumbnail', { path })).dataUrl;
        } catch (error) {
          // The card keeps its placeholder; the template still opens.
          console.warn(`flowdeck: a template thumbnail could not be read: ${messageOf(error)}`);
          return null;
        }
      },
      (path, dataUrl) => {
        this.thumbnails = { ...this.thumbnails, [path]: dataUrl };
      },
    );
  }

  async load(): Promise<void> {
    this.state = { kind: 'loading' };
    try {
      const listing = await this.#api.call('templates.list');
      if (this.#closed) return;
      this.templates = listing.templates;
      this.note = listing.note;
      this.state = listing.available ? { kind: 'ready' } : { kind: 'none' };
    } catch (error) {
      if (!this.#closed) this.state = { kind: 'error', message: messageOf(error) };
    }
  }

  /** A card came into view: its thumbnail is fetched (once). */
  want(path: string): void {
    this.#queue.want(path);
  }

  /** The dialog closed: nothing more is asked for. */
  close(): void {
    this.#closed = true;
    this.#queue.close();
  }
}

// The template gallery of "New from template": the active server's templates (read once each
// time the dialog opens), the search and the chosen category that narrow them, and their
// thumbnails, fetched a few at a time as their cards come into view and kept while it is open.
import type { TemplateView } from '@shared/ipc/contract';
import { messageOf, type Api } from '../api';

/** The category that shows every template. */
export const ALL_TEMPLATES = 'All templates';
/** Thumbnails asked for at once: a real gallery has hundreds, and each comes over IPC. */
const THUMBNAILS_AT_ONCE = 4;

export type GalleryState =
  | { kind: 'loading' }
  | { kind: 'ready' }
  /** The server offers no templates (no templates package, no node pack examples). */
  | { kind: 'none' }
  | { kind: 'error'; message: string };

export interface CategoryView {
  title: string;
  count: number;
}

/** Whether every word of the query is in the template's title, description, category or tags. */
function matches(template: TemplateView, words: string[]): boolean {
  const text = [template.title, template.description, template.category, ...template.tags].join(' ').toLowerCase();
  return words.every((word) => text.includes(word));
}

/** The key of a template (its source and name). */
export function templateKey(template: Pick<TemplateView, 'source' | 'name'>): string {
  return `${template.source}/${template.name}`;
}

export class TemplateGalleryStore {
  state = $state<GalleryState>({ kind: 'loading' });
  templates = $state.raw<TemplateView[]>([]);
  /** What could not be read while the rest could. */
  note = $state<string | null>(null);
  query = $state('');
  category = $state(ALL_TEMPLATES);
  /** Thumbnail path -> data: URL; null when the server has none or it could not be read. */
  thumbnails = $state<Record<string, string | null>>({});

  categories: CategoryView[] = $derived.by(() => {
    const counts = new Map<string, number>();
    for (const t of this.templates) counts.set(t.category, (counts.get(t.category) ?? 0) + 1);
    return [{ title: ALL_TEMPLATES, count: this.templates.length }, ...[...counts].map(([title, count]) => ({ title, count }))];
  });

  shown: TemplateView[] = $derived.by(() => {
    const words = this.query.toLowerCase().split(/\s+/).filter(Boolean);
    return this.templates.filter((t) => (this.category === ALL_TEMPLATES || t.category === this.category) && matches(t, words));
  });

  readonly #api: Api;
  readonly #wanted: string[] = [];
  #loading = 0;
  #closed = false;

  constructor(api: Api) {
    this.#api = api;
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

  /** A card came into view: its thumbnail is fetched (once), a few at a time. */
  want(path: string): void {
    if (path in this.thumbnails || this.#wanted.includes(path)) return;
    this.#wanted.push(path);
    this.#pump();
  }

  /** The dialog closed: nothing more is asked for. */
  close(): void {
    this.#closed = true;
    this.#wanted.length = 0;
  }

  #pump(): void {
    while (this.#loading < THUMBNAILS_AT_ONCE && this.#wanted.length > 0 && !this.#closed) {
      const path = this.#wanted.shift()!;
      this.#loading += 1;
      void this.#api
        .call('templates.thumbnail', { path })
        .then(
          ({ dataUrl }) => dataUrl,
          // A thumbnail that cannot be read leaves the card with its placeholder; the template still opens.
          (error: unknown) => {
            console.warn(`flowdeck: a template thumbnail could not be read: ${messageOf(error)}`);
            return null;
          },
        )
        .then((dataUrl) => {
          this.#loading -= 1;
          if (this.#closed) return;
          this.thumbnails = { ...this.thumbnails, [path]: dataUrl };
          this.#pump();
        });
    }
  }
}

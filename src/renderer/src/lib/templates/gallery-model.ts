// What the template gallery shows, as plain functions (tested without a page): the categories in
// the server's order with their counts, the templates a search and a category leave, and the
// queue that fetches thumbnails once each, a few at a time, until the dialog closes.
import type { TemplateView } from '@shared/ipc/contract';

/** The category that shows every template. */
export const ALL_TEMPLATES = 'All templates';
/** Thumbnails asked for at once: a real gallery has hundreds, and each comes over IPC. */
const THUMBNAILS_AT_ONCE = 4;

export interface CategoryView {
  title: string;
  count: number;
}

/** The key of a template (its source and name). */
export function templateKey(template: Pick<TemplateView, 'source' | 'name'>): string {
  return `${template.source}/${template.name}`;
}

/** "All templates", then each category in the order the server lists them, with their counts. */
export function categoriesOf(templates: readonly TemplateView[]): CategoryView[] {
  const counts = new Map<string, number>();
  for (const t of templates) counts.set(t.category, (counts.get(t.category) ?? 0) + 1);
  return [{ title: ALL_TEMPLATES, count: templates.length }, ...[...counts].map(([title, count]) => ({ title, count }))];
}

/** The templates of `category` in which every word of `query` is found (title, description, category, tags). */
export function filterTemplates(templates: readonly TemplateView[], query: string, category: string): TemplateView[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return templates.filter((t) => {
    if (category !== ALL_TEMPLATES && t.category !== category) return false;
    const text = [t.title, t.description, t.category, ...t.tags].join(' ').toLowerCase();
    return words.every((word) => text.includes(word));
  });
}

/** Fetches thumbnails as cards ask for them: each path once, THUMBNAILS_AT_ONCE at a time, none after close(). */
export class ThumbnailQueue {
  readonly #fetch: (path: string) => Promise<string | null>;
  readonly #deliver: (path: string, dataUrl: string | null) => void;
  readonly #asked = new Set<string>();
  readonly #waiting: string[] = [];
  #inFlight = 0;
  #closed = false;

  /** `fetch` answers the picture's data: URL (null: none, or it could not be read); `deliver` gets it. */
  constructor(fetch: (path: string) => Promise<string | null>, deliver: (path: string, dataUrl: string | null) => void) {
    this.#fetch = fetch;
    this.#deliver = deliver;
  }

  want(path: string): void {
    if (this.#closed || this.#asked.has(path)) return;
    this.#asked.add(path);
    this.#waiting.push(path);
    this.#pump();
  }

  close(): void {
    this.#closed = true;
    this.#waiting.length = 0;
  }

  #pump(): void {
    while (!this.#closed && this.#inFlight < THUMBNAILS_AT_ONCE && this.#waiting.length > 0) {
      const path = this.#waiting.shift()!;
      this.#inFlight += 1;
      void this.#fetch(path)
        .catch(() => null)
        .then((dataUrl) => {
          this.#inFlight -= 1;
          if (this.#closed) return;
          this.#deliver(path, dataUrl);
          this.#pump();
        });
    }
  }
}

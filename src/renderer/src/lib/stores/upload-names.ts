// The original names of uploaded images, by the value that went into the image input. The cloud
// stores an upload under a content hash ("3f2a9c…e1.png") and a masked copy under another: the
// form shows "cat.png" (and "cat.png (masked)") instead, keeping the server's name for the
// workflow and a tooltip. Kept in the window's storage, so a value that comes back later (a draft
// opened again, Reuse parameters, another workflow) still shows its original name.
import { SvelteMap } from 'svelte/reactivity';

const STORAGE_KEY = 'flowdeck.uploadNames';
/** Enough for a long history of uploads; the oldest names are forgotten first. */
const LIMIT = 500;

/** The server's file name in an input value: `sub/dir/x.png` -> `x.png`. */
function baseName(value: string): string {
  return value.slice(Math.max(value.lastIndexOf('/'), value.lastIndexOf('\\')) + 1);
}

/** The window's storage where there is one (the page); none under Node (tests). */
interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}
function storage(): KeyValueStorage | undefined {
  return (globalThis as { localStorage?: KeyValueStorage }).localStorage;
}

function read(): [string, string][] {
  try {
    const parsed: unknown = JSON.parse(storage()?.getItem(STORAGE_KEY) ?? '[]');
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (entry): entry is [string, string] => Array.isArray(entry) && entry.length === 2 && typeof entry[0] === 'string' && typeof entry[1] === 'string',
    );
  } catch {
    return [];
  }
}

export class UploadNames {
  readonly #names: SvelteMap<string, string>;

  constructor(entries: Iterable<[string, string]> = read()) {
    this.#names = new SvelteMap(entries);
  }

  /** The name to show for an input value: the original's when known, else the value itself. */
  label(value: string): string {
    return this.#names.get(value) ?? value;
  }

  /** The original name when it differs from what the server calls the file; null otherwise. */
  original(value: string): string | null {
    return this.#names.get(value) ?? null;
  }

  /** Remembers `name` for `value` (nothing to remember when the server kept the name). */
  remember(value: string, name: string | null | undefined): void {
    if (!name || value === '' || baseName(value) === name) return;
    // Re-inserted so the newest stay when the oldest are dropped.
    this.#names.delete(value);
    this.#names.set(value, name);
    for (const oldest of this.#names.keys()) {
      if (this.#names.size <= LIMIT) break;
      this.#names.delete(oldest);
    }
    try {
      storage()?.setItem(STORAGE_KEY, JSON.stringify([...this.#names.entries()]));
    } catch {
      // Storage refused: the names last for this session.
    }
  }
}

/** One list for the window: every image input reads and adds to it. */
export const uploadNames = new UploadNames();

// The background fill of library_terms (schema.ts, search-match.ts) for a library made before that
// list existed: every term of its search index, read from the index itself (fts5vocab) in
// alphabetical chunks. At a million items the whole read takes seconds, so the migration only
// makes the list and its triggers (new and changed rows add their own terms from then on) and
// this runs after the first screen (issue 25: nothing that can wait is done before it).
//
// Each chunk reads a bounded number of index terms after the mark, then adds them and moves the
// mark in one transaction: the store's one connection is never held for long, and other queries
// run between chunks. The mark (library_terms_fill) makes it resumable after a crash or a quit, a
// repeated chunk only re-adds terms (INSERT OR IGNORE), and once the index has no term after the
// mark the row goes: the list is complete and searches take their fast path for every word.
// Until then a word whose terms lie past the mark is searched as a plain prefix (search-match.ts):
// as fast as it was before the list existed, and never wrong. So the CLI does not fill: a command
// is short-lived (a fill cut off at exit would only be resumed), its searches are right without
// it, and the app fills the list after its next first screen.
//
// What a term costs to read is its doclist (fts5vocab counts the rows of each): a seed number is
// in one row, a common prompt word in most of them. So the number of terms per chunk follows the
// time the last read took, aiming at TARGET_CHUNK_MS: thousands of rare terms at once, a few
// common words. One term is the floor (~25 ms for a word in every row of a million).
import type { Store } from '@main/store/store';

/** Most index terms read per chunk. */
export const TERMS_PER_CHUNK = 2_000;
/** Terms in the first chunk, before a read has been timed. */
const FIRST_CHUNK = 256;
/** The time a chunk's read aims at. */
const TARGET_CHUNK_MS = 10;

// The index's terms in order (one row per term); a temp table of this connection, made when the
// fill starts. fts5vocab seeks to `term > ?` and delivers terms in order, so a chunk reads only
// the doclists of its own terms.
const VOCAB = `CREATE VIRTUAL TABLE IF NOT EXISTS temp.library_fts_vocab USING fts5vocab(main, library_fts, row)`;
const NEXT_TERMS = `SELECT term FROM temp.library_fts_vocab WHERE term > (SELECT after FROM library_terms_fill WHERE id = 1) ORDER BY term LIMIT ?`;

export interface TermsChunk {
  /** Terms read from the index in this chunk. */
  terms: number;
  /** True once the list is complete (no mark left). */
  done: boolean;
  /** Wall time of the read from the index (the chunk's cost, and any wait for the store). */
  readMs: number;
}

/** The stores (connections) whose temp vocabulary table is made. */
const vocabMade = new WeakSet<Store>();

/** Whether terms of older rows may still be missing from library_terms. */
export async function termsFillPending(store: Store): Promise<boolean> {
  return (await store.get('SELECT 1 AS pending FROM library_terms_fill WHERE id = 1')) !== undefined;
}

/** One chunk of the fill: at most `limit` more index terms listed, and the mark moved past them. */
export async function fillTermsChunk(store: Store, limit: number = TERMS_PER_CHUNK): Promise<TermsChunk> {
  if (!vocabMade.has(store)) {
    await store.exec(VOCAB);
    vocabMade.add(store);
  }
  const started = performance.now();
  const terms = (await store.all(NEXT_TERMS, [limit])).map((r) => String(r['term']));
  const readMs = performance.now() - started;
  const last = terms.at(-1);
  await store.transaction(async (tx) => {
    if (last !== undefined) await tx.run('INSERT OR IGNORE INTO library_terms (term) SELECT value FROM json_each(?)', [JSON.stringify(terms)]);
    // Fewer terms than asked: the index has none after these. The UPDATE only moves the mark on,
    // so a second fill running at once (another Library over the same store) never moves it back.
    if (terms.length < limit) await tx.run('DELETE FROM library_terms_fill');
    else await tx.run('UPDATE library_terms_fill SET after = ?1 WHERE id = 1 AND after < ?1', [last ?? '']);
  });
  return { terms: terms.length, done: terms.length < limit, readMs };
}

/**
 * Runs the fill to its end in chunks, unless stopped. run() while running joins the same run;
 * stop() lets the chunk under way finish (it is atomic either way) and waits for it.
 */
export class TermsFill {
  readonly #store: Store;
  readonly #maxTerms: number;
  readonly #onChunk: (chunk: TermsChunk) => void;
  #limit: number;
  #running: Promise<void> | null = null;
  #stopped = false;

  /** `maxTerms` caps the terms per chunk; `onChunk` sees each chunk (for benchmarks). */
  constructor(store: Store, options: { maxTerms?: number; onChunk?: (chunk: TermsChunk) => void } = {}) {
    this.#store = store;
    this.#maxTerms = Math.max(1, Math.floor(options.maxTerms ?? TERMS_PER_CHUNK));
    this.#onChunk = options.onChunk ?? (() => undefined);
    this.#limit = Math.min(FIRST_CHUNK, this.#maxTerms);
  }

  /** Fills what is missing; resolves when the list is complete or the fill was stopped. */
  run(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#running ??= this.#loop().finally(() => (this.#running = null));
    return this.#running;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running?.catch(() => undefined);
  }

  async #loop(): Promise<void> {
    if (!(await termsFillPending(this.#store))) return;
    while (!this.#stopped) {
      const chunk = await fillTermsChunk(this.#store, this.#limit);
      this.#onChunk(chunk);
      if (chunk.done) return;
      // Toward the target: at most twice as many terms next time, and as few as one.
      const scale = Math.min(2, TARGET_CHUNK_MS / Math.max(chunk.readMs, 0.1));
      this.#limit = Math.max(1, Math.min(this.#maxTerms, Math.floor(this.#limit * scale)));
    }
  }
}

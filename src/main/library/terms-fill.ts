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
// common words. One term is the floor (~25 ms for a word in every row of a million). The cost
// changes most where the first character does (from seed numbers to words, from one letter's
// words to the next's), so a chunk stays within the terms of one first character, and the first
// term of the next one is read alone before the chunks grow again.
import type { Store } from '@main/store/store';

/** Most index terms read per chunk. */
export const TERMS_PER_CHUNK = 2_000;
/** The time a chunk's read aims at. */
const TARGET_CHUNK_MS = 10;

// The index's terms in order (one row per term); a temp table of this connection, made when the
// fill starts. fts5vocab seeks to `term > ?` (and stops at `term < ?`) and delivers terms in
// order, so a chunk reads only the doclists of its own terms.
const VOCAB = `CREATE VIRTUAL TABLE IF NOT EXISTS temp.library_fts_vocab USING fts5vocab(main, library_fts, row)`;
const NEXT_TERMS = `SELECT term FROM temp.library_fts_vocab WHERE term > ?1 ORDER BY term LIMIT ?2`;
const NEXT_TERMS_BEFORE = `SELECT term FROM temp.library_fts_vocab WHERE term > ?1 AND term < ?3 ORDER BY term LIMIT ?2`;

export interface TermsChunk {
  /** Terms read from the index in this chunk. */
  terms: number;
  /** The first and last of them. */
  span: [string, string] | null;
  /** True once the list is complete (no mark left). */
  done: boolean;
  /** True when the chunk read the last terms of its first character (asked to stay within it). */
  initialDone: boolean;
  /** Wall time of the read from the index (the chunk's cost, and any wait for the store). */
  readMs: number;
}

/** The stores (connections) whose temp vocabulary table is made. */
const vocabMade = new WeakSet<Store>();

/** Whether terms of older rows may still be missing from library_terms. */
export async function termsFillPending(store: Store): Promise<boolean> {
  return (await store.get('SELECT 1 AS pending FROM library_terms_fill WHERE id = 1')) !== undefined;
}

/** The least string after every term that starts with `term`'s first character; null for none. */
function afterInitial(term: string): string | null {
  const cp = term.codePointAt(0);
  if (cp === undefined || cp >= 0x10ffff) return null;
  return String.fromCodePoint(cp + 1 === 0xd800 ? 0xe000 : cp + 1);
}

/**
 * One chunk of the fill: at most `limit` more index terms listed, and the mark moved past them.
 * `withinInitial`: only terms with the mark's first character (see above).
 */
export async function fillTermsChunk(store: Store, limit: number = TERMS_PER_CHUNK, withinInitial = false): Promise<TermsChunk> {
  if (!vocabMade.has(store)) {
    await store.exec(VOCAB);
    vocabMade.add(store);
  }
  const mark = await store.get('SELECT after FROM library_terms_fill WHERE id = 1');
  if (mark === undefined) return { terms: 0, span: null, done: true, initialDone: false, readMs: 0 };
  const after = String(mark['after']);
  const before = withinInitial ? afterInitial(after) : null;
  const started = performance.now();
  const rows = await store.all(before === null ? NEXT_TERMS : NEXT_TERMS_BEFORE, before === null ? [after, limit] : [after, limit, before]);
  const readMs = performance.now() - started;
  const terms = rows.map((r) => String(r['term']));
  const first = terms[0];
  const last = terms.at(-1);
  // Fewer terms than asked: the index has none after these (or none more of this first character).
  const done = terms.length < limit && before === null;
  await store.transaction(async (tx) => {
    if (last !== undefined) await tx.run('INSERT OR IGNORE INTO library_terms (term) SELECT value FROM json_each(?)', [JSON.stringify(terms)]);
    // The UPDATE only moves the mark on, so a second fill running at once (another Library over
    // the same store) never moves it back.
    if (done) await tx.run('DELETE FROM library_terms_fill');
    else if (last !== undefined) await tx.run('UPDATE library_terms_fill SET after = ?1 WHERE id = 1 AND after < ?1', [last]);
  });
  const span: [string, string] | null = first !== undefined && last !== undefined ? [first, last] : null;
  return { terms: terms.length, span, done, initialDone: terms.length < limit && before !== null, readMs };
}

/**
 * Runs the fill to its end in chunks, unless stopped. run() while running joins the same run;
 * stop() lets the chunk under way finish (it is atomic either way) and waits for it.
 */
export class TermsFill {
  readonly #store: Store;
  readonly #maxTerms: number;
  readonly #onChunk: (chunk: TermsChunk) => void;
  /** Terms in the next chunk: one, first (before a read has been timed). */
  #limit = 1;
  #running: Promise<void> | null = null;
  #stopped = false;

  /** `maxTerms` caps the terms per chunk; `onChunk` sees each chunk (for benchmarks). */
  constructor(store: Store, options: { maxTerms?: number; onChunk?: (chunk: TermsChunk) => void } = {}) {
    this.#store = store;
    this.#maxTerms = Math.max(1, Math.floor(options.maxTerms ?? TERMS_PER_CHUNK));
    this.#onChunk = options.onChunk ?? (() => undefined);
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
    // The first chunk, and each after a first character's last terms, reads one term alone.
    let within = false;
    while (!this.#stopped) {
      const chunk = await fillTermsChunk(this.#store, this.#limit, within);
      this.#onChunk(chunk);
      if (chunk.done) return;
      if (chunk.initialDone) {
        this.#limit = 1;
        within = false;
        continue;
      }
      // Toward the target: at most twice as many terms next time, and as few as one.
      const scale = Math.min(2, TARGET_CHUNK_MS / Math.max(chunk.readMs, 0.1));
      this.#limit = Math.max(1, Math.min(this.#maxTerms, Math.floor(this.#limit * scale)));
      within = true;
    }
  }
}

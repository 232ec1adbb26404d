// What a search's words become in the FTS5 MATCH expression. Each word is a prefix term ("light"
// finds "lighthouse"), all must match. A prefix that FTS5 has a prefix index for (2 or 3
// characters, schema.ts) stays a prefix query: FTS5 walks that index lazily. A longer one would
// make FTS5 merge the doclists of every term it covers before yielding a single row (~25 ms for a
// common word in a million items, whatever the LIMIT), so it becomes the OR of those terms, read
// from library_terms (schema.ts): FTS5 walks an OR lazily, newest first, and stops at the page's end.
// While the terms of a library made before that list are still being filled (terms-fill.ts), a
// word whose range of terms the fill has not passed yet stays a prefix query: slower, never wrong.
import type { Queryable } from '@main/store/store';

/** More search words than this are ignored: a query is a few words, not a paragraph. */
export const MAX_QUERY_TERMS = 16;
/** Prefix lengths (characters) with an FTS5 prefix index: see the migrations in schema.ts. */
const PREFIX_INDEX_LENGTHS = new Set([2, 3]);
/** A prefix covering more terms than this stays a prefix query (an OR that long is no cheaper). */
const MAX_EXPANDED_TERMS = 64;
/** Above every character a term can hold: the exclusive end of a prefix's range of terms. */
const AFTER_EVERY_CHAR = '\u{10FFFF}';

/** The words of a query: NFKC, lower case, no duplicates, at most MAX_QUERY_TERMS. */
export function queryWords(text: string): string[] {
  const words = text.normalize('NFKC').match(/[\p{L}\p{N}\p{M}_]+/gu) ?? [];
  return [...new Set(words.map((w) => w.toLowerCase()))].slice(0, MAX_QUERY_TERMS);
}

/** A word as an FTS5 prefix term: quoting makes operators and stray quotes plain text, never syntax. */
function prefixTerm(word: string): string {
  return `"${word.replaceAll('"', '""')}"*`;
}

/**
 * Turns what a person types into an FTS5 query of prefix terms, every one required. Null when
 * the text has no word at all.
 */
export function ftsQuery(text: string): string | null {
  const words = queryWords(text);
  return words.length === 0 ? null : words.map(prefixTerm).join(' ');
}

/**
 * Each word as the index has it (folded, diacritics removed: the tokenizer is FTS5's own rules),
 * how many tokens it makes, whether library_terms lists every term its token starts (the fill's
 * mark is past them all, or there is no mark: terms-fill.ts), and the first MAX_EXPANDED_TERMS + 1
 * of those terms: one statement for all the words, so a search stays two round trips to the
 * store's thread however many words it has (on a busy machine each round trip can wait for a core).
 */
const WORD_TERMS_SQL = `
  WITH tokens AS (SELECT w.key AS i, t.token AS token FROM json_each(?1) w, library_tokenizer t WHERE t.input = w.value),
       words AS (SELECT i, COUNT(*) AS n, MIN(token) AS token FROM tokens GROUP BY i)
  SELECT i, n, token,
         NOT EXISTS (SELECT 1 FROM library_terms_fill WHERE after < words.token || ?2) AS listed,
         (SELECT json_group_array(term) FROM (SELECT term FROM library_terms WHERE term >= words.token AND term < words.token || ?2 ORDER BY term LIMIT ?3)) AS terms
  FROM words`;

/**
 * The MATCH expression for a query's words, with long prefixes spelled out as the terms they
 * cover (see above). Null when a word's prefix covers no term at all: nothing can match.
 */
export async function expandedMatch(q: Queryable, words: readonly string[]): Promise<string | null> {
  const rows = await q.all(WORD_TERMS_SQL, [JSON.stringify(words), AFTER_EVERY_CHAR, MAX_EXPANDED_TERMS + 1]);
  const byWord = new Map(rows.map((r) => [Number(r['i']), r]));
  const parts: string[] = [];
  for (const [i, word] of words.entries()) {
    const row = byWord.get(i);
    const token = row?.['n'] === 1 ? row['token'] : null;
    // No token, or several ("foo_bar" makes a phrase): FTS5 matches the word as it did before.
    // Nor can a list that may still miss some of the word's terms stand for the prefix.
    if (typeof token !== 'string' || PREFIX_INDEX_LENGTHS.has([...token].length) || row?.['listed'] !== 1) {
      parts.push(prefixTerm(word));
      continue;
    }
    const terms = JSON.parse(String(row?.['terms'] ?? '[]')) as unknown[];
    if (terms.length === 0) return null;
    if (terms.length > MAX_EXPANDED_TERMS) parts.push(prefixTerm(word));
    else parts.push(`(${terms.map((t) => `"${String(t).replaceAll('"', '""')}"`).join(' OR ')})`);
  }
  // Explicit AND: FTS5 takes an implicit one only between plain phrases, not before a parenthesis.
  return parts.join(' AND ');
}

/**
 * The workflow filter as an FTS5 condition too: rows whose workflow name holds the name's words
 * as a phrase, a superset of the rows the exact (case-insensitive) filter keeps, which still
 * applies. FTS5 intersects it with the search's terms in the index, so a search within one
 * workflow of many no longer reads every newer match's row to throw most of them away. Null for
 * no filter, or a name without a word (FTS5 has nothing to look for).
 */
export function workflowCondition(name: string | undefined): string | null {
  if (name === undefined || queryWords(name).length === 0) return null;
  return `workflow_name : "${name.replaceAll('"', '""')}"`;
}

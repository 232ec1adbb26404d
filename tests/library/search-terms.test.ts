// Long search prefixes through the list of terms (search-match.ts, the last library migration):
// the FTS3 tokenizer that fills library_terms splits and folds text exactly as the FTS5 index
// does (compared over every code point of the first three planes), searches give what the plain
// prefix query gives (spelled-out terms, too many terms, a prefix no term has, a phrase, the
// workflow filter), and new and updated rows add their terms. A library made before the list
// gets its terms from its index later: tests/library/terms-fill.test.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '@main/store/store';
import { LibraryIndex, type NewItemRow } from '@main/library/library-index';
import { expandedMatch } from '@main/library/search-match';
import { indexRow } from './support/helpers';

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-terms-'));
  store = await Store.open(join(dir, 'flowdeck.sqlite'));
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

let next = 0;
function row(prompt: string, extra: Partial<NewItemRow> = {}): NewItemRow {
  next += 1;
  return indexRow({ promptId: `t-${next}`, fileName: `f${next}.png`, promptText: prompt, createdAt: next, workflowName: 'Terms', ...extra });
}

/** The ids the plain FTS5 prefix query finds: what a search must give, whatever it asks FTS5. */
async function plainPrefix(words: string[]): Promise<number[]> {
  const match = words.map((w) => `"${w}"*`).join(' ');
  return (await store.all('SELECT rowid FROM library_fts WHERE library_fts MATCH ? ORDER BY rowid DESC', [match])).map((r) => Number(r['rowid']));
}

describe('the terms list', () => {
  it('tokenizes like the FTS5 index over every code point of planes 0-2', async () => {
    await store.exec(`CREATE VIRTUAL TABLE temp.tok USING fts3tokenize('unicode61', 'remove_diacritics=2');
      CREATE VIRTUAL TABLE temp.f USING fts5(t, tokenize = 'unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE temp.v USING fts5vocab(temp, f, instance);`);
    // A row per 256 code points, each inside a word, alone, doubled and beside letters with diacritics.
    const texts: string[] = [];
    for (let base = 0; base < 0x30000; base += 256) {
      let text = '';
      for (let cp = base; cp < base + 256; cp += 1) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        const c = String.fromCodePoint(cp);
        text += `a${c}b ${c} ${c}${c}Ä${c}é `;
      }
      texts.push(text);
    }
    await store.transaction(async (tx) => {
      for (const [i, text] of texts.entries()) await tx.run('INSERT INTO temp.f (rowid, t) VALUES (?, ?)', [i + 1, text]);
    });
    const fts5 = new Map<number, string[]>();
    for (const r of await store.all('SELECT doc, term FROM temp.v ORDER BY doc, offset')) {
      const doc = Number(r['doc']);
      fts5.set(doc, [...(fts5.get(doc) ?? []), String(r['term'])]);
    }
    let differing = 0;
    for (const [i, text] of texts.entries()) {
      const fts3 = (await store.all('SELECT token FROM temp.tok WHERE input = ?', [text])).map((r) => String(r['token']));
      if (fts3.join('\u0001') !== (fts5.get(i + 1) ?? []).join('\u0001')) differing += 1;
    }
    expect(differing).toBe(0);
    // Every row but the surrogates' (no code points of their own) had tokens to compare.
    expect(fts5.size).toBe(texts.filter((t) => t !== '').length);
  }, 60_000);

  it('gives what the prefix query gives, with long prefixes spelled out as their terms', async () => {
    const index = await LibraryIndex.open(store);
    const prompts = ['lighthouse at dusk', 'lighthouses of Brittany', 'a lightning storm', 'Café lumière', 'foo_bar baz', 'light'];
    // 70 terms sharing the prefix "manyterm": more than the search spells out.
    for (let i = 0; i < 70; i += 1) prompts.push(`manyterm${i} filler`);
    await index.transaction((tx) =>
      index.insertMany(
        prompts.map((p) => row(p)),
        tx,
      ),
    );
    const search = async (q: string, filter = {}): Promise<number[]> => (await index.search(q, { limit: 1000, ...filter })).map((r) => r.id);
    for (const words of [['lighth'], ['light'], ['lightn'], ['lumiere'], ['cafe', 'lumi'], ['manyterm'], ['manyterm1'], ['foo_bar'], ['dusk', 'lighthouse']]) {
      expect(await search(words.join(' ')), words.join(' ')).toEqual(await plainPrefix(words));
    }
    expect(await search('lighth')).toHaveLength(2);
    expect(await search('manyterm')).toHaveLength(70);
    expect(await search('zzzzz')).toEqual([]);
    expect(await index.searchCount('zzzzz lighthouse')).toBe(0);
    expect(await index.searchCount('lighth')).toBe(2);
    // How the words were asked: an OR of the terms; the prefix itself past 64 terms; a phrase as is.
    expect(await expandedMatch(store, ['lighth'])).toBe('("lighthouse" OR "lighthouses")');
    expect(await expandedMatch(store, ['manyterm', 'lig'])).toBe('"manyterm"* AND "lig"*');
    expect(await expandedMatch(store, ['foo_bar'])).toBe('"foo_bar"*');
    expect(await expandedMatch(store, ['lumière'])).toBe('("lumiere")');
    expect(await expandedMatch(store, ['nowhere'])).toBeNull();
  });

  it('adds the terms of new and updated rows, and narrows a workflow filter through the index', async () => {
    const index = await LibraryIndex.open(store);
    const { id } = await index.insert(row('harbour', { workflowName: 'Night "Harbour" v2' }));
    await index.insert(row('harbourmaster', { workflowName: 'Night Harbour v2 extra' }));
    expect(await index.search('harbourm')).toHaveLength(1);
    await store.run('UPDATE library_items SET source_file = ? WHERE id = ?', ['/in/seashore-holiday.png', id]);
    expect((await index.search('seasho')).map((r) => r.id)).toEqual([id]);
    // The exact (case-insensitive) workflow filter still decides; the phrase only narrows.
    expect((await index.search('harbour', { workflow: 'night "harbour" V2' })).map((r) => r.id)).toEqual([id]);
    expect(await index.searchCount('harb', { workflow: 'Night Harbour v2 extra' })).toBe(1);
    expect(await index.search('harbour', { workflow: '"' })).toEqual([]);
  });
});

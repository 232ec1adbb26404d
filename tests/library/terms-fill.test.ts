// A library made before the list of search terms (the migrations before library_terms), opened by
// this version: opening only makes the list, the terms of the older rows are filled later in
// chunks (terms-fill.ts), and search stays right all along: before the fill, midway with searches
// between the chunks, after a fill stopped midway and resumed over a reopened store, and for rows
// added or changed while it runs; a chunk never reads past its first character's terms. A
// library whose terms the first version of the migration filled at once has nothing to fill.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '@main/store/store';
import { LibraryIndex } from '@main/library/library-index';
import { Library } from '@main/library/library';
import { expandedMatch } from '@main/library/search-match';
import { fillTermsChunk, termsFillPending, TermsFill, type TermsChunk } from '@main/library/terms-fill';
import { LIBRARY_MIGRATIONS } from '../../src/main/library';

/** The migrations of a library made before library_terms (the last two came with it). */
const BEFORE_TERMS = LIBRARY_MIGRATIONS.slice(0, -2);

/** Words the older rows hold: each prefix of 4+ letters below has a few terms, in several rows. */
const OLD_PROMPTS = [
  'an old harbourmaster at dawn',
  'harbourmasters in the fog',
  'a lighthouse keeper',
  'lighthouses of Brittany',
  'Café lumière at night',
  'zeppelin over the harbour',
  'abandoned zeppelins',
  'quiet meadow with poppies',
];

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-terms-fill-'));
  store = await Store.open(join(dir, 'flowdeck.sqlite'));
  await store.migrate('library', BEFORE_TERMS);
  for (const [i, prompt] of OLD_PROMPTS.entries()) await insertOld(store, `old-${i}`, prompt);
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** A row as an earlier version wrote it, straight into the table (no code of this version involved). */
async function insertOld(into: Store, promptId: string, prompt: string): Promise<void> {
  await into.run(
    `INSERT INTO library_items (prompt_id, server_kind, base_url, node_id, output_key, file_name, file_subfolder, file_type, media_kind, prompt_text, created_at, recorded_at, status)
     VALUES (?, 'local', 'http://x', '9', 'images', ?, '', 'output', 'image', ?, 1, 1, 'done')`,
    [promptId, `${promptId}.png`, prompt],
  );
}

/** The ids the plain FTS5 prefix query finds: what a search must give, whatever it asks FTS5. */
async function plainPrefix(words: string[]): Promise<number[]> {
  const match = words.map((w) => `"${w}"*`).join(' ');
  return (await store.all('SELECT rowid FROM library_fts WHERE library_fts MATCH ? ORDER BY rowid DESC', [match])).map((r) => Number(r['rowid']));
}

async function listedTerms(): Promise<string[]> {
  return (await store.all('SELECT term FROM library_terms ORDER BY term')).map((r) => String(r['term']));
}

/** Every term of the search index now (what the list must hold once complete). */
async function indexTerms(): Promise<string[]> {
  await store.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.check_vocab USING fts5vocab(main, library_fts, row)');
  return (await store.all('SELECT term FROM temp.check_vocab ORDER BY term')).map((r) => String(r['term']));
}

async function mark(): Promise<string | null> {
  const row = await store.get('SELECT after FROM library_terms_fill');
  return row === undefined ? null : String(row['after']);
}

const WORDS = [['harbourm'], ['lighth'], ['lumi'], ['zeppel'], ['abandon'], ['harbour', 'dawn'], ['popp'], ['meadows']];

/** Every word's search gives what the plain prefix query gives, and at least one old row for each word an old row has. */
async function expectSearchesRight(index: LibraryIndex): Promise<void> {
  for (const words of WORDS) {
    const expected = await plainPrefix(words);
    expect(
      (await index.search(words.join(' '), { limit: 1000 })).map((r) => r.id),
      words.join(' '),
    ).toEqual(expected);
    expect(await index.searchCount(words.join(' ')), words.join(' ')).toBe(expected.length);
  }
  expect((await index.search('harbourm')).map((r) => r.prompt_id)).toEqual(['old-1', 'old-0']);
}

describe('the search terms of a library made before the list', () => {
  it('are not filled by opening it, and search finds the old rows by long prefixes before the fill', async () => {
    const index = await LibraryIndex.open(store);
    expect(await store.version('library')).toBe(LIBRARY_MIGRATIONS.length);
    expect(await listedTerms()).toEqual([]);
    expect(await termsFillPending(store)).toBe(true);
    expect(await mark()).toBe('');
    // The empty list cannot stand for any prefix yet: every long word stays a prefix query.
    expect(await expandedMatch(store, ['harbourm', 'zeppel'])).toBe('"harbourm"* AND "zeppel"*');
    await expectSearchesRight(index);
    expect(await index.search('nowhere')).toEqual([]);
  });

  it('are filled in chunks with searches between them, each word on its fast path once the fill has passed its terms', async () => {
    const index = await LibraryIndex.open(store);
    const all = await indexTerms();
    let chunks = 0;
    let sawSplit = false;
    for (;;) {
      const chunk = await fillTermsChunk(store, 4);
      chunks += 1;
      expect(chunk.terms).toBeLessThanOrEqual(4);
      await expectSearchesRight(index);
      const at = await mark();
      if (chunk.done) break;
      // Midway: the terms up to the mark are listed, none after it has come from the fill.
      expect(await listedTerms()).toEqual(all.filter((t) => t <= at!));
      // A word whose terms all lie before the mark takes the list; one past it, the prefix query.
      if (at! > 'harbourmasters' && at! < 'zeppelin') {
        sawSplit = true;
        expect(await expandedMatch(store, ['harbourm', 'zeppel'])).toBe('("harbourmaster" OR "harbourmasters") AND "zeppel"*');
      }
    }
    expect(chunks).toBe(Math.floor(all.length / 4) + 1);
    expect(sawSplit).toBe(true);
    expect(await termsFillPending(store)).toBe(false);
    expect(await listedTerms()).toEqual(all);
    expect(await expandedMatch(store, ['harbourm', 'zeppel'])).toBe('("harbourmaster" OR "harbourmasters") AND ("zeppelin" OR "zeppelins")');
    expect(await expandedMatch(store, ['nowhere'])).toBeNull();
    await expectSearchesRight(index);
  });

  it('lets other queries run between its chunks', async () => {
    const index = await LibraryIndex.open(store);
    const all = await indexTerms();
    const filling = new TermsFill(store, { maxTerms: 1 }).run();
    // Once the fill is under way (its mark has moved), a search is answered long before it ends.
    while ((await mark()) === '');
    const during = await index.search('lighth');
    const listedThen = (await listedTerms()).length;
    await filling;
    expect(during.map((r) => r.prompt_id)).toEqual(['old-3', 'old-2']);
    expect(listedThen).toBeGreaterThan(0);
    expect(listedThen).toBeLessThan(all.length / 2);
    expect(await termsFillPending(store)).toBe(false);
    expect(await listedTerms()).toEqual(all);
  });

  it('keeps each chunk within one first character, and reads the first term of the next alone', async () => {
    await LibraryIndex.open(store);
    const all = await indexTerms();
    const chunks: TermsChunk[] = [];
    await new TermsFill(store, { onChunk: (chunk) => chunks.push(chunk) }).run();
    expect(await listedTerms()).toEqual(all);
    const initial = (term: string): string => String.fromCodePoint(term.codePointAt(0)!);
    for (const chunk of chunks)
      if (chunk.span !== null && chunk.terms > 1) expect(initial(chunk.span[0]), chunk.span.join(' .. ')).toBe(initial(chunk.span[1]));
    // Every first character began with a chunk of its first term alone.
    const initials = [...new Set(all.map(initial))];
    const alone = chunks.filter((c) => c.terms === 1).map((c) => c.span![0]);
    for (const i of initials) expect(alone, i).toContain(all.find((t) => initial(t) === i));
  });

  it('resumes a fill stopped midway from its mark over a reopened store, and completes it', async () => {
    await LibraryIndex.open(store);
    const all = await indexTerms();
    await fillTermsChunk(store, 5);
    await fillTermsChunk(store, 5);
    expect(await mark()).toBe(all[9]);
    // A quit: the store closes with the mark where the fill got to.
    await store.close();
    store = await Store.open(join(dir, 'flowdeck.sqlite'));
    const index = await LibraryIndex.open(store);
    expect(await mark()).toBe(all[9]);
    await expectSearchesRight(index);
    // A crash between listing terms and moving the mark only repeats them (INSERT OR IGNORE).
    await store.run('INSERT INTO library_terms (term) VALUES (?)', [all[10]!]);
    let read = 0;
    for (let done = false; !done;) {
      const chunk = await fillTermsChunk(store, 5);
      read += chunk.terms;
      done = chunk.done;
    }
    expect(read).toBe(all.length - 10);
    expect(await listedTerms()).toEqual(all);
    expect(await termsFillPending(store)).toBe(false);
    await expectSearchesRight(index);
  });

  it('lists the terms of rows added and changed while the fill runs', async () => {
    const index = await LibraryIndex.open(store);
    await fillTermsChunk(store, 3);
    await insertOld(store, 'new-1', 'a new zucchini still life');
    await store.run("UPDATE library_items SET prompt_text = 'abandoned quixotically' WHERE prompt_id = 'old-7'");
    // The triggers listed them at once, ahead of the fill.
    expect(await listedTerms()).toEqual(expect.arrayContaining(['zucchini', 'quixotically']));
    expect((await index.search('zucch')).map((r) => r.prompt_id)).toEqual(['new-1']);
    expect((await index.search('quixot')).map((r) => r.prompt_id)).toEqual(['old-7']);
    await new TermsFill(store, { maxTerms: 3 }).run();
    expect(await listedTerms()).toEqual(await indexTerms());
    expect(await expandedMatch(store, ['zucch'])).toBe('("zucchini")');
    expect((await index.search('zucch')).map((r) => r.prompt_id)).toEqual(['new-1']);
    // The old row's former words are gone from it; their terms may stay listed but match nothing of it.
    expect((await index.search('poppies')).map((r) => r.prompt_id)).toEqual([]);
    await expectSearchesRight(index);
  });

  it('are filled by the library after open, not during it, and a disposed library stops filling', async () => {
    const library = await Library.open({ store, root: join(dir, 'library'), source: () => null });
    expect(await listedTerms()).toEqual([]);
    expect((await library.search('harbourm')).map((i) => i.promptId)).toEqual(['old-1', 'old-0']);
    await library.fillSearchTerms();
    expect(await termsFillPending(store)).toBe(false);
    expect(await listedTerms()).toEqual(await indexTerms());
    await library.dispose();
    const other = await Library.open({ store, root: join(dir, 'library'), source: () => null });
    await other.dispose();
    await store.run("INSERT INTO library_terms_fill (id, after) VALUES (1, '')");
    await other.fillSearchTerms();
    expect(await mark()).toBe('');
  });

  it('leaves nothing to fill when the first version of the migration listed the terms at once', async () => {
    await store.close();
    await rm(join(dir, 'flowdeck.sqlite'));
    store = await Store.open(join(dir, 'flowdeck.sqlite'));
    // The list's migration as it first shipped: the terms filled from the index inside it.
    const firstVersion = `${LIBRARY_MIGRATIONS.at(-2)!}
      CREATE VIRTUAL TABLE temp.library_fts_terms USING fts5vocab(main, library_fts, row);
      INSERT OR IGNORE INTO library_terms (term) SELECT term FROM temp.library_fts_terms;
      DROP TABLE temp.library_fts_terms;`;
    await store.migrate('library', BEFORE_TERMS);
    await insertOld(store, 'old-0', 'an old harbourmaster');
    await store.migrate('library', [...BEFORE_TERMS, firstVersion]);
    const index = await LibraryIndex.open(store);
    expect(await termsFillPending(store)).toBe(false);
    expect(await expandedMatch(store, ['harbourm'])).toBe('("harbourmaster")');
    expect((await index.search('harbourm')).map((r) => r.prompt_id)).toEqual(['old-0']);
  });

  it('leaves nothing to fill in a library made by this version', async () => {
    await store.close();
    await rm(join(dir, 'flowdeck.sqlite'));
    store = await Store.open(join(dir, 'flowdeck.sqlite'));
    const index = await LibraryIndex.open(store);
    expect(await termsFillPending(store)).toBe(false);
    await insertOld(store, 'n-0', 'a fresh harbourmaster');
    expect(await expandedMatch(store, ['harbourm'])).toBe('("harbourmaster")');
    expect((await index.search('harbourm')).map((r) => r.prompt_id)).toEqual(['n-0']);
  });
});

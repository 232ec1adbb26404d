// Opening a library made before the list of search terms (library_terms, issue 25 "Start"): the
// migration as it first shipped (terms filled from the FTS index inside it, before the first
// screen) against this version's (list and triggers only), side by side on copies of one
// library, then this version's background fill (src/main/library/terms-fill.ts) on its own: total
// time, chunks, the longest chunk's read; and on another copy the same fill with a search every
// 100 ms beside it (someone typing), their latency against the same searches after the fill (while
// it runs they interleave with its chunks, and take the plain prefix query until it has passed
// their terms).
//
// The library is seeded as the start-up bench seeds it (bench/support/seed-store.ts, at this
// version's schema: short prompts, a seed number per item), or taken from --library FILE (a store
// at this version's schema, e.g. the one bench/library-index.ts --db DIR builds: prompts of 8-15
// words of a 3,000-word vocabulary, a few of them in most items), then taken back to the schema
// before the list: the list, its triggers, the tokenizer table and the mark dropped, their
// migration rows removed. The FTS index is untouched.
//
//   npx tsx bench/terms-fill.ts [--items 100000] [--rounds 2] [--db DIR] [--library FILE]
//   --db DIR keeps the older library in DIR between runs (made on the first run).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LIBRARY_MIGRATIONS } from '@main/library/schema';
import { LibraryIndex } from '@main/library/library-index';
import { TERMS_PER_CHUNK, TermsFill, type TermsChunk } from '@main/library/terms-fill';
import { Store } from '@main/store/store';
import { loadAverage } from './support/proc-cpu';
import { seedDataDir } from './support/seed-store';

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '2' },
    db: { type: 'string' },
    library: { type: 'string' },
    'max-terms': { type: 'string' },
  },
});
const ITEMS = Number(values.items);
const ROUNDS = Number(values.rounds);
/** --max-terms caps the terms per chunk (default: the app's, TERMS_PER_CHUNK). */
const FILL_OPTIONS = values['max-terms'] !== undefined ? { maxTerms: Number(values['max-terms']) } : {};

/** The migrations before the list of terms (the last two came with it). */
const BEFORE_TERMS = LIBRARY_MIGRATIONS.slice(0, -2);
/** The list's migration as it first shipped: the terms read from the index inside it. */
const FIRST_VERSION = `${LIBRARY_MIGRATIONS.at(-2)!}
  CREATE VIRTUAL TABLE temp.library_fts_terms USING fts5vocab(main, library_fts, row);
  INSERT OR IGNORE INTO library_terms (term) SELECT term FROM temp.library_fts_terms;
  DROP TABLE temp.library_fts_terms;`;

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const load = (): string => `load ${loadAverage().toFixed(1)}`;

/** The older library (the seeded one, or --library's), in one file (the WAL checkpointed). */
async function makeOlderLibrary(dataDir: string): Promise<string> {
  const file = join(dataDir, 'flowdeck.sqlite');
  if (existsSync(file)) return file;
  const t0 = performance.now();
  if (values.library !== undefined) copyFileSync(values.library, file);
  else await seedDataDir(dataDir, { items: ITEMS, images: 20 });
  const store = await Store.open(file);
  try {
    await LibraryIndex.open(store);
    await store.transaction(async (tx) => {
      await tx.exec(`DROP TRIGGER library_items_terms_ai; DROP TRIGGER library_items_terms_au;
        DROP TABLE library_terms; DROP TABLE library_tokenizer; DROP TABLE library_terms_fill;`);
      await tx.run("DELETE FROM migrations WHERE module = 'library' AND version > ?", [BEFORE_TERMS.length]);
    });
    await store.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const n = Number((await store.get('SELECT COUNT(*) AS n FROM library_items'))?.['n']);
    console.log(
      `${values.library ?? 'seeded'}: ${n.toLocaleString('en')} items in ${((performance.now() - t0) / 1000).toFixed(0)} s (store ${(statSync(file).size / 1048576).toFixed(0)} MB), taken back to the schema before the list of terms`,
    );
  } finally {
    await store.close();
  }
  return file;
}

/** A fresh copy of the older library to open. */
function copyOf(base: string, work: string): string {
  const file = join(work, 'round.sqlite');
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  copyFileSync(base, file);
  return file;
}

/** Opens the copy with the library's migrations as they first shipped; ms of wall and CPU. */
async function openFirstVersion(file: string): Promise<{ wall: number; cpu: number }> {
  const store = await Store.open(file);
  try {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await store.migrate('library', [...BEFORE_TERMS, FIRST_VERSION]);
    return { wall: performance.now() - t0, cpu: cpuMs(c0) };
  } finally {
    await store.close();
  }
}

/** What each search asks: a word of the library's own prompts, whole or its first 4-5 letters. */
async function searchWords(store: Store): Promise<string[]> {
  const rows = await store.all('SELECT prompt_text FROM library_items WHERE id % 997 = 1 LIMIT 40');
  const words = rows.flatMap((r) => String(r['prompt_text']).match(/\p{L}{4,}/gu) ?? []);
  return words.map((w, i) => (i % 3 === 0 ? w : w.slice(0, 4 + (i % 2))));
}

/** Opens the copy with this version: ms of wall and CPU, and the library index. */
async function openThisVersion(store: Store): Promise<{ wall: number; cpu: number; index: LibraryIndex }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const index = await LibraryIndex.open(store);
  return { wall: performance.now() - t0, cpu: cpuMs(c0), index };
}

/** The fill alone, to its end: wall, CPU, and each chunk's terms and read time. */
async function fillAlone(store: Store): Promise<{ wall: number; cpu: number; chunks: TermsChunk[] }> {
  const chunks: TermsChunk[] = [];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await new TermsFill(store, { ...FILL_OPTIONS, onChunk: (chunk) => chunks.push(chunk) }).run();
  return { wall: performance.now() - t0, cpu: cpuMs(c0), chunks };
}

/** The fill with a search every 100 ms beside it; the searches' times during it and after it. */
async function fillWithSearches(store: Store, index: LibraryIndex, words: readonly string[]): Promise<{ during: number[]; after: number[] }> {
  const search = async (n: number): Promise<number> => {
    const s0 = performance.now();
    await index.search(words[n % words.length]!, { limit: 100 });
    return performance.now() - s0;
  };
  let filling = true;
  const during: number[] = [];
  const searches = (async () => {
    for (let n = 0; filling; n += 1) {
      during.push(await search(n));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await new TermsFill(store, FILL_OPTIONS).run();
  filling = false;
  await searches;
  const after: number[] = [];
  for (let n = 0; n < Math.max(40, during.length); n += 1) after.push(await search(n));
  return { during: during.sort((a, b) => a - b), after: after.sort((a, b) => a - b) };
}

const ms = (v: number): string => `${v.toFixed(v < 10 ? 1 : 0)} ms`;
const spread = (sorted: readonly number[]): string =>
  `p50 ${ms(percentile(sorted, 50))}, p95 ${ms(percentile(sorted, 95))}, max ${ms(sorted.at(-1) ?? NaN)} (${sorted.length} searches)`;

async function main(): Promise<void> {
  const keep = values.db !== undefined;
  const dataDir = keep ? values.db! : mkdtempSync(join(tmpdir(), 'flowdeck-bench-terms-'));
  mkdirSync(dataDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'flowdeck-bench-terms-round-'));
  console.log(
    `terms fill benchmark: ${ROUNDS} rounds, at most ${FILL_OPTIONS.maxTerms ?? TERMS_PER_CHUNK} terms per chunk (Node ${process.version}, ${load()})`,
  );
  try {
    const base = await makeOlderLibrary(dataDir);
    for (let round = 1; round <= ROUNDS; round += 1) {
      // Alternating which goes first: on a shared machine only figures taken side by side compare.
      const order = round % 2 === 1 ? (['first', 'this'] as const) : (['this', 'first'] as const);
      for (const which of order) {
        if (which === 'first') {
          const before = await openFirstVersion(copyOf(base, work));
          console.log(`round ${round}: open, the migration as first shipped (fills at once): ${ms(before.wall)} wall, ${ms(before.cpu)} CPU (${load()})`);
          continue;
        }
        let store = await Store.open(copyOf(base, work));
        try {
          const open = await openThisVersion(store);
          console.log(`round ${round}: open, this version (list and triggers only):        ${ms(open.wall)} wall, ${ms(open.cpu)} CPU (${load()})`);
          const f = await fillAlone(store);
          const reads = f.chunks.map((c) => c.readMs).sort((a, b) => a - b);
          const terms = f.chunks.reduce((sum, c) => sum + c.terms, 0);
          const longest = f.chunks.reduce((a, b) => (b.readMs > a.readMs ? b : a));
          console.log(
            `round ${round}:   the fill after it, alone: ${terms.toLocaleString('en')} terms in ${f.chunks.length} chunks, ${ms(f.wall)} wall, ${ms(f.cpu)} CPU; ` +
              `a chunk's read p50 ${ms(percentile(reads, 50))}, p95 ${ms(percentile(reads, 95))}, longest ${ms(longest.readMs)} (${longest.terms} terms) (${load()})`,
          );
        } finally {
          await store.close();
        }
        store = await Store.open(copyOf(base, work));
        try {
          const { index } = await openThisVersion(store);
          const s = await fillWithSearches(store, index, await searchWords(store));
          console.log(`round ${round}:   a search every 100 ms during the fill: ${spread(s.during)} (${load()})`);
          console.log(`round ${round}:   the same searches after it:           ${spread(s.after)}`);
        } finally {
          await store.close();
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

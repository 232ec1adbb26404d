// The index without downloads (the source is "not reachable", so items stay pending): what a
// record keeps (provenance, prompt text, exact big integers), idempotent records, list filters,
// full-text search with hostile query text, and the migrations in the shared store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '@main/store/store';
import { LibraryIndex, type NewItemRow } from '@main/library/library-index';
import { LIBRARY_MIGRATIONS, Library, ftsQuery, type LibraryChange, type LibraryServer } from '../../src/main/library';
import type { OutputFile, Workflow } from '@main/service/types';
import { indexRow } from './support/helpers';

const SERVER: LibraryServer = { profileId: 'p-local', kind: 'local', baseUrl: 'http://127.0.0.1:8188/' };
const CLOUD: LibraryServer = { profileId: 'p-cloud', kind: 'cloud', baseUrl: 'https://cloud.example' };
const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

let dir: string;
let store: Store;
let library: Library;

function workflow(prompt: string, extra: Record<string, unknown> = {}): Workflow {
  return {
    '3': {
      class_type: 'DemoSampler',
      inputs: { prompt, negative_prompt: 'blurry', seed: 18446744073709551615n, steps: 4, sampler_name: 'euler_ancestral', ...extra },
    },
    '9': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'Flowdeck' } },
    '12': { class_type: 'DemoVideo', inputs: { image: ['3', 0], frames: 24 } },
    '13': { class_type: 'DemoAudio', inputs: { seconds: 1, frequency: 440 } },
  } as Workflow;
}

function out(node: string, filename: string, key = 'images', type = 'output'): OutputFile {
  return { node, filename, subfolder: '', type, key };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-libidx-'));
  store = await Store.open(join(dir, 'flowdeck.sqlite'));
  library = await Library.open({ store, root: join(dir, 'library'), source: () => null });
  await library.start();
});

afterEach(async () => {
  await library.dispose();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('recording', () => {
  it('keeps the provenance of each output, the prompt text, and big integers exactly', async () => {
    const changes: LibraryChange[] = [];
    library.onChange((c) => changes.push(c));
    const items = await library.record(
      {
        promptId: 'job-1',
        outputs: [out('9', 'Flowdeck_00001_.png'), out('12', 'clip.webm', 'video'), out('13', 'tone.wav', 'audio'), out('9', 'preview.png', 'images', 'temp')],
      },
      { server: SERVER, workflow: workflow('a lighthouse at dusk'), workflowName: 'Text to image', createdAt: T0 },
    );
    // The temp preview is not an output.
    expect(items.map((i) => [i.nodeId, i.nodeClass, i.mediaKind, i.status])).toEqual([
      ['9', 'SaveImage', 'image', 'pending'],
      ['12', 'DemoVideo', 'video', 'pending'],
      ['13', 'DemoAudio', 'audio', 'pending'],
    ]);
    const item = items[0]!;
    expect(item).toMatchObject({
      promptId: 'job-1',
      server: { profileId: 'p-local', kind: 'local', baseUrl: 'http://127.0.0.1:8188' },
      workflowName: 'Text to image',
      file: { filename: 'Flowdeck_00001_.png', subfolder: '', type: 'output' },
      createdAt: T0,
      path: null,
      sha256: null,
      attempts: 0,
    });
    expect(item.promptText).toBe('a lighthouse at dusk\nblurry');
    expect(item.inputs['3']?.seed).toBe(18446744073709551615n);
    expect(item.inputs['9']).toEqual({ filename_prefix: 'Flowdeck' }); // the link is wiring, not a value
    expect(item.inputs['12']).toEqual({ frames: 24 });
    const stored = await library.workflow(item.id);
    expect((stored?.['3'] as { inputs: { seed: unknown } }).inputs.seed).toBe(18446744073709551615n);
    // No client for the server: pending, with the reason, and no attempt counted.
    await library.whenSettled(items.map((i) => i.id));
    const after = await library.get(item.id);
    expect(after).toMatchObject({ status: 'pending', attempts: 0 });
    expect(after?.error).toContain('127.0.0.1:8188');
    expect(changes.filter((c) => c.type === 'added')).toHaveLength(3);
  });

  it('records the same file of the same job once, however often the job is recorded', async () => {
    const first = await library.record({ promptId: 'job-2', outputs: [out('9', 'a.png')] }, { server: SERVER, createdAt: T0 });
    const again = await library.record({ promptId: 'job-2', outputs: [out('9', 'a.png'), out('9', 'b.png')] }, { server: SERVER, createdAt: T0 });
    expect(again[0]!.id).toBe(first[0]!.id);
    expect(again).toHaveLength(2);
    expect(await library.count()).toBe(2);
    expect(library.hasRecorded({ promptId: 'job-2', outputs: [out('9', 'b.png')] }, SERVER.baseUrl)).toBe(true);
    expect(library.hasRecorded({ promptId: 'job-2', outputs: [out('9', 'c.png')] }, SERVER.baseUrl)).toBe(false);
    // The same name from another server or job is another item.
    await library.record({ promptId: 'job-2', outputs: [out('9', 'a.png')] }, { server: CLOUD, createdAt: T0 });
    await library.record({ promptId: 'job-3', outputs: [out('9', 'a.png')] }, { server: SERVER, createdAt: T0 });
    expect(await library.count()).toBe(4);
  });

  it('registers its migrations under the module "library" in the shared store', async () => {
    expect(await store.version('library')).toBe(LIBRARY_MIGRATIONS.length);
    const tables = await store.all("SELECT name FROM sqlite_master WHERE name LIKE 'library_%' ORDER BY name");
    expect(tables.map((t) => t['name'])).toContain('library_fts');
    // A second Library over the same store applies nothing again.
    const other = await Library.open({ store, root: join(dir, 'library'), source: () => null });
    await other.dispose();
    expect(await store.version('library')).toBe(LIBRARY_MIGRATIONS.length);
  });

  it('keeps rows searchable across the migration that rebuilds the search index', async () => {
    const old = await Store.open(join(dir, 'old.sqlite'));
    try {
      await old.migrate('library', LIBRARY_MIGRATIONS.slice(0, 2));
      await old.run(
        `INSERT INTO library_items (prompt_id, server_kind, base_url, node_id, output_key, file_name, file_subfolder, file_type, media_kind, prompt_text, created_at, recorded_at, status)
         VALUES ('old-job', 'local', 'http://x', '9', 'images', 'old.png', '', 'output', 'image', 'an old harbour', 1, 1, 'pending')`,
      );
      const upgraded = await Library.open({ store: old, root: join(dir, 'old-library'), source: () => null });
      expect((await upgraded.search('harb')).map((i) => i.promptId)).toEqual(['old-job']);
      await upgraded.dispose();
    } finally {
      await old.close();
    }
  });

  it('indexes a job listing the same output twice once', async () => {
    const items = await library.record({ promptId: 'twice', outputs: [out('9', 'x.png'), out('9', 'x.png')] }, { server: SERVER });
    expect(items).toHaveLength(1);
    expect(await library.count()).toBe(1);
  });
});

describe('list and search', () => {
  beforeEach(async () => {
    await library.record(
      { promptId: 'j-a', outputs: [out('9', 'lighthouse_00001_.png')] },
      { server: SERVER, workflow: workflow('a lighthouse at dusk'), workflowName: 'Text to image', createdAt: T0 - 2 * DAY },
    );
    await library.record(
      { promptId: 'j-b', outputs: [out('9', 'forest_00001_.png'), out('12', 'forest.webm', 'video')] },
      { server: SERVER, workflow: workflow('a misty forest, Café at night'), workflowName: 'Text to image', createdAt: T0 - DAY },
    );
    await library.record(
      { promptId: 'j-c', outputs: [out('13', 'tone.wav', 'audio')] },
      { server: CLOUD, workflow: workflow('ocean waves'), workflowName: 'Soundscape', createdAt: T0 },
    );
  });

  it('lists newest first, by type, date range, workflow, server and job, with paging', async () => {
    expect((await library.list()).map((i) => i.file.filename)).toEqual(['tone.wav', 'forest.webm', 'forest_00001_.png', 'lighthouse_00001_.png']);
    expect((await library.list({ type: 'image' })).map((i) => i.promptId)).toEqual(['j-b', 'j-a']);
    expect((await library.list({ type: 'video' })).map((i) => i.file.filename)).toEqual(['forest.webm']);
    expect((await library.list({ since: T0 - DAY })).map((i) => i.promptId)).toEqual(['j-c', 'j-b', 'j-b']);
    expect((await library.list({ since: new Date(T0 - 3 * DAY), until: T0 - DAY })).map((i) => i.promptId)).toEqual(['j-a']);
    expect((await library.list({ workflow: 'text TO image' })).length).toBe(3);
    expect((await library.list({ server: 'p-cloud' })).map((i) => i.promptId)).toEqual(['j-c']);
    expect((await library.list({ server: 'http://127.0.0.1:8188' })).length).toBe(3);
    expect((await library.list({ promptId: 'j-b' })).length).toBe(2);
    expect((await library.list({ limit: 2, offset: 1 })).map((i) => i.file.filename)).toEqual(['forest.webm', 'forest_00001_.png']);
    expect((await library.list({ status: 'done' })).length).toBe(0);
    expect((await library.list({ status: ['pending', 'failed'] })).length).toBe(4);
    expect(await library.count({ type: 'image' })).toBe(2);
    expect(await library.workflows()).toEqual([
      { name: 'Soundscape', count: 1 },
      { name: 'Text to image', count: 3 },
    ]);
  });

  it('searches prompt text, workflow names, node classes, file names and input values, by word prefix', async () => {
    const ids = async (q: string, filter = {}): Promise<string[]> => (await library.search(q, filter)).map((i) => `${i.promptId}:${i.nodeId}`);
    expect(await ids('lighthouse')).toEqual(['j-a:9']);
    expect(await ids('light')).toEqual(['j-a:9']); // prefix
    expect(await ids('misty forest')).toEqual(['j-b:12', 'j-b:9']);
    expect(await ids('cafe')).toEqual(['j-b:12', 'j-b:9']); // diacritics folded
    expect(await ids('soundscape')).toEqual(['j-c:13']);
    expect(await ids('DemoVideo')).toEqual(['j-b:12']);
    expect(await ids('euler_ancestral')).toHaveLength(4); // an input value
    expect(await ids('forest', { type: 'video' })).toEqual(['j-b:12']);
    expect(await ids('lighthouse', { server: 'p-cloud' })).toEqual([]);
    expect(await ids('nothing-like-this')).toEqual([]);
    // FTS syntax in the query is text, never an error or an injection.
    expect(await ids('"lighthouse')).toEqual(['j-a:9']);
    expect(await ids('lighthouse OR ocean')).toEqual([]);
    expect(await ids("'); DROP TABLE library_items; --")).toEqual([]);
    expect(await ids('NEAR(light* ocean) ^ - : *')).toEqual([]);
    expect(await library.count()).toBe(4);
    // A blank query is the same as list(); symbols only find the items that hold them.
    expect((await library.search('   ')).length).toBe(4);
    expect(await ids('  ""  ')).toEqual([]);
    expect(await library.searchCount('  ""  ')).toBe(0);
  });

  it('finds hot-folder outputs by the name of their input file', async () => {
    const [item] = await library.search('lighthouse');
    expect(await library.search('holiday')).toEqual([]);
    // What the hot folder records (import-file.ts): the input file the output was made from.
    await store.run('UPDATE library_items SET source_file = ? WHERE id = ?', ['/photos/in/holiday-beach.png', item!.id]);
    expect((await library.search('holiday')).map((i) => i.id)).toEqual([item!.id]);
    expect((await library.search('beach lighthouse')).map((i) => i.id)).toEqual([item!.id]);
    expect(await library.searchCount('holi')).toBe(1);
  });

  it('a query of only symbols or emoji finds only the items containing it, never everything', async () => {
    const sunrise = await library.record(
      { promptId: 'j-emoji', outputs: [out('9', 'sun_00001_.png')] },
      { server: SERVER, workflow: workflow('sunrise 🌅 over #hills'), createdAt: T0 },
    );
    const ids = async (q: string): Promise<number[]> => (await library.search(q)).map((i) => i.id);
    expect(await library.count()).toBe(5);
    expect(await ids('🌅')).toEqual([sunrise[0]!.id]);
    expect(await library.searchCount('🌅')).toBe(1);
    expect(await ids('#')).toEqual([sunrise[0]!.id]);
    expect(await ids('🌅 #')).toEqual([sunrise[0]!.id]);
    expect(await ids('🐱')).toEqual([]);
    expect(await library.searchCount('🐱')).toBe(0);
    expect(await ids("'); --")).toEqual([]);
    // Filters still apply.
    expect(await library.search('🌅', { type: 'video' })).toEqual([]);
  });

  it('keeps the search index in step when items are deleted', async () => {
    const [item] = await library.search('lighthouse');
    expect((await library.delete(item!.id)).removed).toBe(true);
    expect(await library.search('lighthouse')).toEqual([]);
    expect(await library.get(item!.id)).toBeNull();
    expect((await library.delete(item!.id)).removed).toBe(false);
  });
});

describe('search within dates over many rows', () => {
  it('finds rows of an old date range, also one recorded long after its job was created', async () => {
    const index = await LibraryIndex.open(store);
    const row = (i: number, createdAt: number, prompt: string): NewItemRow =>
      indexRow({ promptId: `bulk-${i}`, fileName: `f${i}.png`, promptText: prompt, createdAt });
    // 5000 rows over 5000 minutes, ids in creation order, spanning several id blocks.
    const rows = Array.from({ length: 5000 }, (_, i) => row(i, T0 + i * 60_000, i % 2 === 0 ? 'common harbour' : 'common field'));
    await index.transaction((tx) => index.insertMany(rows, tx));
    // Recorded last (highest id) but created before everything else.
    await index.insert(row(9999, T0 - DAY, 'common harbour late'));
    const between = async (since: number, until: number): Promise<string[]> =>
      (await index.search('common harbour', { since, until, limit: 1000 })).map((r) => r.prompt_id);
    expect(await between(T0 + 100 * 60_000, T0 + 104 * 60_000)).toEqual(['bulk-102', 'bulk-100']);
    expect(await between(T0 - 2 * DAY, T0)).toEqual(['bulk-9999']);
    expect(await between(T0 - 3 * DAY, T0 - 2 * DAY)).toEqual([]);
    expect((await index.search('harbour', { since: T0 + 4990 * 60_000, limit: 1000 })).map((r) => r.prompt_id)).toEqual([
      'bulk-4998',
      'bulk-4996',
      'bulk-4994',
      'bulk-4992',
      'bulk-4990',
    ]);
    expect(await index.search('harbour', { until: T0 - 5 * DAY })).toEqual([]);
  });
});

describe('ftsQuery', () => {
  it('quotes every word as a prefix term and drops everything else', () => {
    expect(ftsQuery('a Lighthouse, at dusk!')).toBe('"a"* "lighthouse"* "at"* "dusk"*');
    expect(ftsQuery('"quoted" AND (x) *')).toBe('"quoted"* "and"* "x"*');
    expect(ftsQuery('日本 写真')).toBe('"日本"* "写真"*');
    expect(ftsQuery(' -- ')).toBeNull();
  });
});

// Through the app core on the demo service: a data folder whose library was made before the list
// of search terms starts without filling it (issue 25: nothing that can wait is done before the
// first screen), and the list is filled once a renderer is ready. A second connection to the
// store file looks on, as another process would.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '@main/store/store';
import { LIBRARY_MIGRATIONS } from '../../src/main/library';
import { demoCoreInTemp, type DemoCore } from '../support/demo-core';
import { until } from '../watch/helpers';

const cores: DemoCore[] = [];
const lookers: Store[] = [];

afterEach(async () => {
  for (const store of lookers.splice(0)) await store.close();
  for (const core of cores.splice(0)) await core.close();
});

/** A data folder with a library of the migrations before library_terms, and a few rows in it. */
async function olderLibrary(dataDir: string): Promise<void> {
  const store = await Store.open(join(dataDir, 'flowdeck.sqlite'));
  await store.migrate('library', LIBRARY_MIGRATIONS.slice(0, -2));
  for (const [i, prompt] of ['an old harbourmaster', 'lighthouses at dawn', 'a quiet meadow'].entries()) {
    await store.run(
      `INSERT INTO library_items (prompt_id, server_kind, base_url, node_id, output_key, file_name, file_subfolder, file_type, media_kind, prompt_text, created_at, recorded_at, status)
       VALUES (?, 'local', 'http://x', '9', 'images', ?, '', 'output', 'image', ?, 1, 1, 'done')`,
      [`old-${i}`, `old-${i}.png`, prompt],
    );
  }
  await store.close();
}

describe('the search terms of an older library, through the app core', () => {
  it('are filled after the first screen, not during the start', async () => {
    const demo = demoCoreInTemp('flowdeck-terms-core-');
    cores.push(demo);
    await olderLibrary(demo.dataDir);
    await demo.core.start();
    const looker = await Store.open(join(demo.dataDir, 'flowdeck.sqlite'));
    lookers.push(looker);
    const terms = async (): Promise<number> => Number((await looker.get('SELECT COUNT(*) AS n FROM library_terms'))?.['n']);
    const pending = async (): Promise<boolean> => (await looker.get('SELECT 1 AS p FROM library_terms_fill')) !== undefined;
    // Started and migrated; no renderer yet, so no first screen (the wait without one is 3 s).
    expect(await looker.version('library')).toBe(LIBRARY_MIGRATIONS.length);
    await new Promise((r) => setTimeout(r, 500));
    expect(await pending()).toBe(true);
    expect(await terms()).toBe(0);
    // A search meanwhile still finds the old rows by a long prefix.
    const found = await demo.core.invoke('library.list', { query: 'harbourm' });
    const items = found.ok ? (found.value as { items: { promptId: string }[] }).items : [];
    expect(items.map((i) => i.promptId)).toEqual(['old-0']);
    await demo.core.invoke('renderer.ready', undefined);
    await until(async () => !(await pending()), 'the terms listed after the first screen', 10_000);
    expect(await terms()).toBeGreaterThan(5);
  });
});

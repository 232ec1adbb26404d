import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store, StoreError } from '@main/store/store';

let dir: string;
const opened: Store[] = [];

async function open(path: string): Promise<Store> {
  const store = await Store.open(path);
  opened.push(store);
  return store;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-store-'));
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('Store', () => {
  it('opens a file in WAL mode with foreign keys on', async () => {
    const store = await open(join(dir, 'nested', 'flowdeck.db'));
    expect((await store.get('PRAGMA journal_mode'))?.['journal_mode']).toBe('wal');
    expect((await store.get('PRAGMA foreign_keys'))?.['foreign_keys']).toBe(1);
    expect((await store.get('PRAGMA busy_timeout'))?.['timeout']).toBe(5000);
    await store.exec('CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (p INTEGER REFERENCES parent(id));');
    await expect(store.run('INSERT INTO child (p) VALUES (?)', [42])).rejects.toThrow(/FOREIGN KEY/);
  });

  it('applies each module migrations once, and again only what is new after a reopen', async () => {
    const path = join(dir, 'flowdeck.db');
    let store = await open(path);
    expect(await store.migrate('alpha', ['CREATE TABLE a (x TEXT)'])).toBe(1);
    expect(await store.migrate('beta', ['CREATE TABLE b (y TEXT)', 'ALTER TABLE b ADD COLUMN z INTEGER'])).toBe(2);
    await store.run('INSERT INTO a (x) VALUES (?)', ['kept']);
    await store.close();
    await store.close(); // idempotent

    store = await open(path);
    // Running the same list again changes nothing; a longer list applies only the new step.
    expect(await store.migrate('alpha', ['CREATE TABLE a (x TEXT)', 'ALTER TABLE a ADD COLUMN w INTEGER DEFAULT 7'])).toBe(2);
    expect(await store.migrate('beta', ['CREATE TABLE b (y TEXT)', 'ALTER TABLE b ADD COLUMN z INTEGER'])).toBe(2);
    expect(await store.get('SELECT x, w FROM a')).toEqual({ x: 'kept', w: 7 });
    const rows = await store.all('SELECT module, version FROM migrations ORDER BY module, version');
    expect(rows).toEqual([
      { module: 'alpha', version: 1 },
      { module: 'alpha', version: 2 },
      { module: 'beta', version: 1 },
      { module: 'beta', version: 2 },
    ]);
  });

  it('refuses a store written by a newer schema, and leaves a failed step unapplied', async () => {
    const store = await open(':memory:');
    await store.migrate('alpha', ['CREATE TABLE a (x TEXT)', 'CREATE TABLE a2 (x TEXT)']);
    await expect(store.migrate('alpha', ['CREATE TABLE a (x TEXT)'])).rejects.toThrow(/newer version of Flowdeck/);
    await expect(store.migrate('gamma', ['CREATE TABLE g (x TEXT)', 'THIS IS NOT SQL'])).rejects.toThrow(StoreError);
    expect(await store.version('gamma')).toBe(1);
  });

  it('serialises transactions: a concurrent writer never lands inside another transaction', async () => {
    const store = await open(':memory:');
    await store.exec('CREATE TABLE t (n INTEGER)');
    const order: string[] = [];
    const tx = store.transaction(async (q) => {
      await q.run('INSERT INTO t (n) VALUES (1)');
      order.push('tx-insert');
      await new Promise((r) => setTimeout(r, 20));
      // Statements through the store itself join the running transaction instead of deadlocking.
      await store.run('INSERT INTO t (n) VALUES (2)');
      throw new Error('roll back');
    });
    const outside = store.run('INSERT INTO t (n) VALUES (3)').then(() => order.push('outside'));
    await expect(tx).rejects.toThrow('roll back');
    await outside;
    expect(order).toEqual(['tx-insert', 'outside']);
    expect(await store.all('SELECT n FROM t')).toEqual([{ n: 3 }]);
  });

  it('reuses prepared statements without holding a stale view, and closes with more texts than it keeps', async () => {
    const path = join(dir, 'shared.db');
    const a = await open(path);
    const b = await open(path);
    await a.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)');
    await a.run('INSERT INTO kv (k, v) VALUES (?, ?), (?, ?)', ['x', 1, 'y', 2]);
    // A get through a kept statement must not leave a read transaction open: the other
    // connection's later write is seen, and this connection can still write.
    expect(await a.get('SELECT v FROM kv WHERE k = ? OR k = ? ORDER BY k', ['x', 'y'])).toEqual({ v: 1 });
    await b.run('UPDATE kv SET v = ? WHERE k = ?', [10, 'x']);
    expect(await a.get('SELECT v FROM kv WHERE k = ? OR k = ? ORDER BY k', ['x', 'y'])).toEqual({ v: 10 });
    await a.transaction((tx) => tx.run('UPDATE kv SET v = ? WHERE k = ?', [11, 'x']));
    expect(await b.get('SELECT v FROM kv WHERE k = ?', ['x'])).toEqual({ v: 11 });
    // A failing statement reports its SQL, and the same text works again afterwards.
    await expect(a.run('INSERT INTO kv (k, v) VALUES (?, ?)', ['x', 0])).rejects.toThrow(/UNIQUE.*in: INSERT INTO kv/);
    expect((await a.run('INSERT INTO kv (k, v) VALUES (?, ?)', ['z', 3])).changes).toBe(1);
    // More distinct texts than the cache keeps (old ones are finalized as they fall out).
    for (let i = 0; i < 300; i += 1) expect(await a.get(`SELECT v + ${i} AS w FROM kv WHERE k = ?`, ['z'])).toEqual({ w: 3 + i });
    await a.close();
    await b.close();
  });

  it('has FTS5 for later modules', async () => {
    const store = await open(':memory:');
    await store.exec("CREATE VIRTUAL TABLE docs USING fts5(body); INSERT INTO docs (body) VALUES ('a red fox'), ('blue sky');");
    expect(await store.all("SELECT body FROM docs WHERE docs MATCH 'fox'")).toEqual([{ body: 'a red fox' }]);
  });

  it('rejects statements after close', async () => {
    const store = await open(':memory:');
    await store.close();
    await expect(store.get('SELECT 1')).rejects.toThrow(/closed/);
  });
});

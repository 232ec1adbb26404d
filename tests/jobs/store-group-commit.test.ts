// Group commit (src/main/store/statement-queue.ts, used by Store): single statements waiting
// together share one BEGIN IMMEDIATE ... COMMIT, and no caller hears of its write before the
// COMMIT that kept it; a failing statement fails alone (the ones before it commit), a group that
// SQLite rolls back as a whole rejects every write it held, and transactions, exec and PRAGMAs run
// alone. Real SQLite files; the order of what reached the connection is read back from it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Store } from '@main/store/store';
import { GroupRolledBackError, StatementQueue, statementKind, type GroupConnection } from '@main/store/statement-queue';

let dir = '';
let store: Store;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-group-'));
  store = await Store.open(join(dir, 'flowdeck.sqlite'));
  await store.exec('CREATE TABLE t (n INTEGER PRIMARY KEY, v TEXT)');
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

it('commits statements that wait together in one group, each caller answered after the commit', async () => {
  const before = store.groupStats;
  // A second connection reads what is committed: a caller answered must find its row there.
  const reader = await Store.open(join(dir, 'flowdeck.sqlite'));
  try {
    const seenByReader: number[] = [];
    const writes = Array.from({ length: 10 }, (_, i) =>
      store.run('INSERT INTO t (n, v) VALUES (?, ?)', [i, `v${i}`]).then(async () => {
        const row = await reader.get('SELECT n FROM t WHERE n = ?', [i]);
        if (row) seenByReader.push(i);
      }),
    );
    await Promise.all(writes);
    expect(seenByReader.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  } finally {
    await reader.close();
  }
  const after = store.groupStats;
  expect(after.groups).toBeGreaterThan(before.groups);
  // The first statement may run alone (nothing waited beside it yet); the rest share groups.
  expect(after.grouped - before.grouped).toBeGreaterThanOrEqual(9);
});

it('keeps the order of a run of statements, reads seeing the writes queued before them', async () => {
  const results = await Promise.all([
    store.run('INSERT INTO t (n, v) VALUES (1, ?)', ['a']),
    store.run('UPDATE t SET v = ? WHERE n = 1', ['b']),
    store.get('SELECT v FROM t WHERE n = ?', [1]),
    store.run('UPDATE t SET v = ? WHERE n = 1', ['c']),
    store.get('SELECT v FROM t WHERE n = ?', [1]),
  ]);
  expect(results[2]).toEqual({ v: 'b' });
  expect(results[4]).toEqual({ v: 'c' });
});

it('fails a failing statement alone: the statements before it commit, the ones after it run', async () => {
  await store.run('INSERT INTO t (n, v) VALUES (?, ?)', [100, 'taken']);
  const outcomes = await Promise.allSettled([
    store.run('INSERT INTO t (n, v) VALUES (?, ?)', [1, 'x']),
    store.run('INSERT INTO t (n, v) VALUES (?, ?)', [2, 'x']),
    store.run('INSERT INTO t (n, v) VALUES (?, ?)', [100, 'duplicate']),
    store.run('INSERT INTO t (n, v) VALUES (?, ?)', [3, 'x']),
    store.run('INSERT INTO t (n, v) VALUES (?, ?)', [4, 'x']),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
  expect((await store.all('SELECT n FROM t ORDER BY n')).map((r) => r['n'])).toEqual([1, 2, 3, 4, 100]);
});

it('rejects every write of a group SQLite rolled back as a whole, and keeps none of them', async () => {
  // INSERT OR ROLLBACK undoes the whole transaction on a conflict, as a full disk or an I/O error does.
  await store.run('INSERT INTO t (n, v) VALUES (?, ?)', [100, 'taken']);
  const outcomes = await Promise.allSettled([
    store.run('INSERT INTO t (n, v) VALUES (?, ?)', [1, 'x']),
    store.run('INSERT INTO t (n, v) VALUES (?, ?)', [2, 'x']),
    store.run('INSERT OR ROLLBACK INTO t (n, v) VALUES (?, ?)', [100, 'duplicate']),
    store.run('INSERT INTO t (n, v) VALUES (?, ?)', [3, 'x']),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected', 'fulfilled']);
  expect((outcomes[0] as PromiseRejectedResult).reason).toBeInstanceOf(GroupRolledBackError);
  expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
  // The one after the failure ran in a group (or alone) of its own.
  expect((await store.all('SELECT n FROM t ORDER BY n')).map((r) => r['n'])).toEqual([3, 100]);
});

it('runs transactions, exec and PRAGMAs alone, in order with the statements around them', async () => {
  const order: string[] = [];
  const note = (what: string) => () => void order.push(what);
  await Promise.all([
    store.run('INSERT INTO t (n, v) VALUES (1, ?)', ['a']).then(note('run 1')),
    store.run('INSERT INTO t (n, v) VALUES (2, ?)', ['a']).then(note('run 2')),
    store.run('INSERT INTO t (n, v) VALUES (3, ?)', ['a']).then(note('run 3')),
    store
      .transaction(async (tx) => {
        // A transaction sees every statement queued before it as committed.
        expect((await tx.get('SELECT COUNT(*) AS c FROM t'))?.['c']).toBe(3);
        await tx.run('INSERT INTO t (n, v) VALUES (4, ?)', ['tx']);
      })
      .then(note('transaction')),
    store.get('PRAGMA user_version').then(note('pragma')),
    store.run('INSERT INTO t (n, v) VALUES (5, ?)', ['a']).then(note('run 5')),
  ]);
  expect(order).toEqual(['run 1', 'run 2', 'run 3', 'transaction', 'pragma', 'run 5']);
  expect(statementKind('PRAGMA wal_checkpoint')).toBe('alone');
  expect(statementKind('  select 1')).toBe('read');
  expect(statementKind('INSERT INTO t VALUES (1)')).toBe('write');
});

it('answers a grouped statement only after its COMMIT (the queue on a connection that is told)', async () => {
  const log: string[] = [];
  let commitDone: () => void = () => undefined;
  const connection: GroupConnection = {
    begin: async () => void log.push('begin'),
    commit: () =>
      new Promise<void>((resolve) => {
        log.push('commit');
        commitDone = () => {
          log.push('committed');
          resolve();
        };
      }),
    rollback: async () => void log.push('rollback'),
  };
  const queue = new StatementQueue(connection, { minGroup: 2 });
  const answered = [1, 2, 3].map((i) => queue.push(async () => (log.push(`stmt ${i}`), i), 'write').then((v) => log.push(`answered ${v}`)));
  await new Promise((r) => setTimeout(r, 10));
  expect(log).toEqual(['begin', 'stmt 1', 'stmt 2', 'stmt 3', 'commit']);
  commitDone();
  await Promise.all(answered);
  expect(log.slice(5)).toEqual(['committed', 'answered 1', 'answered 2', 'answered 3']);
});

it('closes after the statements queued before close', async () => {
  const pending = Array.from({ length: 5 }, (_, i) => store.run('INSERT INTO t (n, v) VALUES (?, ?)', [i, 'x']));
  const closing = store.close();
  await Promise.all(pending);
  await closing;
  const again = await Store.open(join(dir, 'flowdeck.sqlite'));
  store = again;
  expect((await again.get('SELECT COUNT(*) AS c FROM t'))?.['c']).toBe(5);
});

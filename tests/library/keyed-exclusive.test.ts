// The library's exclusive step per content (src/main/library/keyed-exclusive.ts): tasks of one key
// run one at a time and in order, tasks of different keys side by side, a failure does not stop
// the next task of its key, and idle() waits for everything queued.
import { expect, it } from 'vitest';
import { KeyedExclusive } from '@main/library/keyed-exclusive';

const tick = (ms = 5): Promise<void> => new Promise((r) => setTimeout(r, ms));

it('runs the tasks of one key one at a time, in order, and different keys side by side', async () => {
  const exclusive = new KeyedExclusive();
  const running = new Map<string, number>();
  let mostOfOneKey = 0;
  let mostAtOnce = 0;
  const order: string[] = [];
  const task = (key: string, name: string) => async (): Promise<string> => {
    running.set(key, (running.get(key) ?? 0) + 1);
    mostOfOneKey = Math.max(mostOfOneKey, running.get(key)!);
    mostAtOnce = Math.max(
      mostAtOnce,
      [...running.values()].reduce((a, b) => a + b, 0),
    );
    await tick();
    order.push(name);
    running.set(key, running.get(key)! - 1);
    return name;
  };
  const results = await Promise.all([
    exclusive.run('a', task('a', 'a1')),
    exclusive.run('b', task('b', 'b1')),
    exclusive.run('a', task('a', 'a2')),
    exclusive.run('c', task('c', 'c1')),
    exclusive.run('a', task('a', 'a3')),
  ]);
  expect(results).toEqual(['a1', 'b1', 'a2', 'c1', 'a3']);
  expect(order.filter((n) => n.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
  expect(mostOfOneKey).toBe(1);
  expect(mostAtOnce).toBe(3);
});

it('goes on with a key after a task of it failed, and idle() waits for every task', async () => {
  const exclusive = new KeyedExclusive();
  const failed = exclusive.run('a', async () => {
    await tick();
    throw new Error('boom');
  });
  let ranAfter = false;
  const after = exclusive.run('a', async () => {
    ranAfter = true;
  });
  let slowDone = false;
  void exclusive.run('b', async () => {
    await tick(20);
    slowDone = true;
  });
  await expect(failed).rejects.toThrow('boom');
  await after;
  expect(ranAfter).toBe(true);
  await exclusive.idle();
  expect(slowDone).toBe(true);
});

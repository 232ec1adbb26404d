// The hot-folder lock under real contention: two child processes race for a lock left behind by a
// dead owner, round after round, and exactly one may win each time. Deleting the lock's files
// while it is held, or killing the holder with SIGKILL, must neither hand it to a second owner nor
// block the next one.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireFolderLock, FolderLockedError } from '@main/watch/lock';

const RACER = join(import.meta.dirname, 'fixtures', 'lock-racer.ts');
const ROUNDS = 300;

interface Racer {
  child: ChildProcess;
  next<T>(type: string): Promise<T>;
}

function startRacer(): Promise<Racer> {
  const child = fork(RACER, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const inbox: { type: string }[] = [];
  const waiting: { type: string; resolve: (m: unknown) => void }[] = [];
  child.on('message', (m: { type: string }) => {
    const i = waiting.findIndex((w) => w.type === m.type);
    if (i >= 0) waiting.splice(i, 1)[0]!.resolve(m);
    else inbox.push(m);
  });
  const racer: Racer = {
    child,
    next<T>(type: string): Promise<T> {
      const i = inbox.findIndex((m) => m.type === type);
      if (i >= 0) return Promise.resolve(inbox.splice(i, 1)[0] as T);
      return new Promise((resolve) => waiting.push({ type, resolve: resolve as (m: unknown) => void }));
    },
  };
  return racer.next('ready').then(() => racer);
}

let work: string;
let racers: Racer[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'flowdeck-lock-race-'));
  racers = await Promise.all([startRacer(), startRacer()]);
});

afterAll(() => {
  for (const r of racers) r.child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('the hot-folder lock between processes', () => {
  it(`has exactly one owner in each of ${ROUNDS} rounds of two processes taking over a dead owner's lock`, async () => {
    const path = join(work, 'locks', 'race.lock');
    mkdirSync(join(work, 'locks'), { recursive: true });
    const winners: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      writeFileSync(path, '999999999\n'); // left by a process that no longer exists
      const at = Date.now() + 15;
      for (const r of racers) r.child.send({ type: 'race', path, at });
      const results = await Promise.all(racers.map((r) => r.next<{ won: boolean; error?: string | null }>('result')));
      for (const result of results) expect(result.error ?? null).toBeNull();
      winners.push(results.filter((r) => r.won).length);
      await Promise.all(
        racers.map((r) => {
          r.child.send({ type: 'release' });
          return r.next('released');
        }),
      );
    }
    const doubled = winners.filter((n) => n > 1).length;
    const none = winners.filter((n) => n === 0).length;
    expect({ doubled, none }).toEqual({ doubled: 0, none: 0 });
  }, 120_000);

  it('is not handed to a second owner when its files are deleted while held', async () => {
    const dir = join(work, 'deleted');
    const path = join(dir, 'f.lock');
    const release = await acquireFolderLock(path, '/in');
    try {
      rmSync(dir, { recursive: true, force: true }); // a user "cleaning up"
      racers[0]!.child.send({ type: 'hold', path });
      expect(await racers[0]!.next<{ won: boolean }>('result')).toMatchObject({ won: false });
    } finally {
      release();
    }
    racers[0]!.child.send({ type: 'hold', path });
    expect(await racers[0]!.next<{ won: boolean }>('result')).toMatchObject({ won: true }); // free once released
    racers[0]!.child.send({ type: 'release' });
    await racers[0]!.next('released');
  });

  it('passes at once to the next process after its owner is killed with SIGKILL, and names a live owner', async () => {
    const path = join(work, 'killed', 'f.lock');
    const victim = await startRacer();
    victim.child.send({ type: 'hold', path });
    expect(await victim.next<{ won: boolean }>('result')).toMatchObject({ won: true });
    let refusal: unknown = null;
    try {
      await acquireFolderLock(path, '/in');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(FolderLockedError);
    expect((refusal as FolderLockedError).pid).toBe(victim.child.pid);
    const gone = new Promise((resolve) => victim.child.on('exit', resolve));
    victim.child.kill('SIGKILL');
    await gone;
    const release = await acquireFolderLock(path, '/in');
    release();
  });
});

// The CLI on a damaged data store: random bytes where flowdeck.sqlite should be. The command goes
// on with a fresh store and a warning (the damaged file kept beside it); --json still gives JSON;
// a store that cannot be used at all exits 6, the store's own code, with a JSON object too.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../support/cli';
import { startCliWork, TINY_IMAGE_WORKFLOW, type CliWork } from '../support/cli-work';

let cli: CliWork;

beforeAll(async () => {
  expect(existsSync(CLI), `${CLI} (the build runs in tests/support/build.ts)`).toBe(true);
  cli = await startCliWork('flowdeck-cli-store-');
});

afterAll(async () => {
  await cli?.close();
});

function corruptDataDir(name: string): { dir: string; junk: Buffer } {
  const dir = join(cli.dir, name);
  mkdirSync(dir, { recursive: true });
  const junk = randomBytes(32 * 1024);
  writeFileSync(join(dir, 'flowdeck.sqlite'), junk);
  return { dir, junk };
}

describe('a damaged store', () => {
  it('run --json: moves the file aside, warns, runs the job and prints its JSON', async () => {
    const { dir, junk } = corruptDataDir('run');
    const wf = cli.write('wf.json', TINY_IMAGE_WORKFLOW);
    const run = await runCli(['run', wf, '--server', cli.local.url, '--local', '--out', join(cli.dir, 'run-out'), '--json'], {
      env: { FLOWDECK_DATA_DIR: dir },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim())).toMatchObject({ status: 'succeeded' });
    expect(run.stderr).toMatch(/warning: The local data store was damaged \(file is not a database\); it was moved aside to .*flowdeck\.sqlite\.corrupt-/);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    const aside = readdirSync(dir).filter((n) => n.startsWith('flowdeck.sqlite.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dir, aside[0]!))).toEqual(junk);
  });

  it('library list --json: an empty list and a warning, exit 0', async () => {
    const { dir } = corruptDataDir('list');
    const run = await runCli(['library', 'list', '--json'], { env: { FLOWDECK_DATA_DIR: dir } });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
    expect(run.stderr).toContain('moved aside');
  });

  it('exits 6 with a JSON object when the store cannot be used at all', async () => {
    const dir = join(cli.dir, 'unusable');
    mkdirSync(join(dir, 'flowdeck.sqlite'), { recursive: true }); // a folder where the file should be
    const run = await runCli(['library', 'list', '--json'], { env: { FLOWDECK_DATA_DIR: dir } });
    expect(run.code, run.stderr).toBe(6);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'error', exit_code: 6 });
    expect(run.stderr).toMatch(/^flowdeck: .*flowdeck\.sqlite/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

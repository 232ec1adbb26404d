// The CLI on a damaged data store: random bytes where flowdeck.sqlite should be. The command goes
// on with a fresh store and a warning (the damaged file kept beside it); --json still gives JSON;
// a store that cannot be used at all exits 6, the store's own code, with a JSON object too.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { CLI, runCli } from '../support/cli';

let work: string;
let local: DemoService;

beforeAll(async () => {
  expect(existsSync(CLI), `${CLI} (the build runs in tests/support/build.ts)`).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-cli-store-'));
  local = new DemoService({ flavour: 'local', timeScale: 0.2 });
  await local.start();
});

afterAll(async () => {
  await local?.stop();
  rmSync(work, { recursive: true, force: true });
});

function corruptDataDir(name: string): { dir: string; junk: Buffer } {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const junk = randomBytes(32 * 1024);
  writeFileSync(join(dir, 'flowdeck.sqlite'), junk);
  return { dir, junk };
}

describe('a damaged store', () => {
  it('run --json: moves the file aside, warns, runs the job and prints its JSON', async () => {
    const { dir, junk } = corruptDataDir('run');
    const wf = join(work, 'wf.json');
    writeFileSync(
      wf,
      JSON.stringify({
        '1': { class_type: 'DemoSampler', inputs: { prompt: 'x', seed: 1, steps: 1, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 0 } },
        '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 't' } },
      }),
    );
    const run = await runCli(['run', wf, '--server', local.url, '--local', '--out', join(work, 'run-out'), '--json'], { env: { FLOWDECK_DATA_DIR: dir } });
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
    const dir = join(work, 'unusable');
    mkdirSync(join(dir, 'flowdeck.sqlite'), { recursive: true }); // a folder where the file should be
    const run = await runCli(['library', 'list', '--json'], { env: { FLOWDECK_DATA_DIR: dir } });
    expect(run.code, run.stderr).toBe(6);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'error', exit_code: 6 });
    expect(run.stderr).toMatch(/^flowdeck: .*flowdeck\.sqlite/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

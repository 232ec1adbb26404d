// A run killed while copying into --out leaves NAME.part-...; the next run into that folder removes
// such leftovers of dead runs, and leaves foreign files with similar names alone.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../support/cli';
import { startCliWork, TINY_IMAGE_WORKFLOW, type CliWork } from '../support/cli-work';

let cli: CliWork;

beforeAll(async () => {
  expect(existsSync(CLI), `${CLI} (the build runs in tests/support/build.ts)`).toBe(true);
  cli = await startCliWork('flowdeck-cli-partials-');
});

afterAll(async () => {
  await cli?.close();
});

describe('flowdeck run --out after a killed copy', () => {
  it('removes stale partial files of dead runs and keeps foreign ones', async () => {
    const out = join(cli.dir, 'out');
    mkdirSync(out, { recursive: true });
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
    const stale = [`t_00001_.png.part-${deadPid}-0123456789ab`, 't_00002_.png.part-a1b2c3d4e5f6'];
    const foreign = ['notes.part-1', 'holiday.png.part-zzzz'];
    const hourAgo = new Date(Date.now() - 3600_000);
    for (const name of [...stale, ...foreign]) {
      writeFileSync(join(out, name), 'half a file');
      utimesSync(join(out, name), hourAgo, hourAgo);
    }
    const wf = cli.write('wf.json', TINY_IMAGE_WORKFLOW);
    const run = await runCli(['run', wf, '--server', cli.local.url, '--local', '--out', out], { env: { FLOWDECK_DATA_DIR: join(cli.dir, 'data') } });
    expect(run.code, run.stderr).toBe(0);
    const left = readdirSync(out);
    for (const name of stale) expect(left, name).not.toContain(name);
    for (const name of foreign) expect(left, name).toContain(name);
    expect(left.filter((n) => n.endsWith('.png'))).toHaveLength(1);
    expect(run.stderr).toContain(`removed 2 partial files left by an interrupted run in ${out}`);
  });
});

// A run killed while copying into --out leaves NAME.part-...; the next run into that folder removes
// such leftovers of dead runs, and leaves foreign files with similar names alone.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { CLI, runCli } from '../support/cli';

let work: string;
let local: DemoService;

beforeAll(async () => {
  expect(existsSync(CLI), `${CLI} (the build runs in tests/support/build.ts)`).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-cli-partials-'));
  local = new DemoService({ flavour: 'local', timeScale: 0.2 });
  await local.start();
});

afterAll(async () => {
  await local?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('flowdeck run --out after a killed copy', () => {
  it('removes stale partial files of dead runs and keeps foreign ones', async () => {
    const out = join(work, 'out');
    mkdirSync(out, { recursive: true });
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
    const stale = [`t_00001_.png.part-${deadPid}-0123456789ab`, 't_00002_.png.part-a1b2c3d4e5f6'];
    const foreign = ['notes.part-1', 'holiday.png.part-zzzz'];
    const hourAgo = new Date(Date.now() - 3600_000);
    for (const name of [...stale, ...foreign]) {
      writeFileSync(join(out, name), 'half a file');
      utimesSync(join(out, name), hourAgo, hourAgo);
    }
    const wf = join(work, 'wf.json');
    writeFileSync(
      wf,
      JSON.stringify({
        '1': { class_type: 'DemoSampler', inputs: { prompt: 'x', seed: 1, steps: 1, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 0 } },
        '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 't' } },
      }),
    );
    const run = await runCli(['run', wf, '--server', local.url, '--local', '--out', out], { env: { FLOWDECK_DATA_DIR: join(work, 'data') } });
    expect(run.code, run.stderr).toBe(0);
    const left = readdirSync(out);
    for (const name of stale) expect(left, name).not.toContain(name);
    for (const name of foreign) expect(left, name).toContain(name);
    expect(left.filter((n) => n.endsWith('.png'))).toHaveLength(1);
    expect(run.stderr).toContain(`removed 2 partial files left by an interrupted run in ${out}`);
  });
});

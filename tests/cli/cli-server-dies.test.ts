// kill -9 of the server 5 s into a slow `run`: the CLI must give up after the documented time
// without answers (FLOWDECK_UNREACHABLE_AFTER, 3 s here; 30 s by default), exit 5, say that the
// server stopped answering and what the job was last known to be doing.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI } from '../support/cli';
import { runMeasured } from '../support/hostile-server';

let work: string;
let demo: ChildProcess | null = null;

function startDemo(): Promise<string> {
  return new Promise((resolve, reject) => {
    demo = spawn(process.execPath, [CLI, 'demo', '--local', '--time-scale', '1'], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
    let out = '';
    demo.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    demo.once('exit', (code) => reject(new Error(`the demo exited (${code}) before listening: ${out}`)));
  });
}

beforeAll(() => {
  expect(existsSync(CLI)).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-dies-'));
});

afterAll(() => {
  demo?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

it('gives up with exit 5 and the last known state when the server dies mid-job', { timeout: 90_000 }, async () => {
  const url = await startDemo();
  const wf = join(work, 'slow.json');
  writeFileSync(
    wf,
    JSON.stringify({
      '1': { class_type: 'DemoSampler', inputs: { prompt: 'slow', seed: 1, steps: 200, width: 64, height: 48, cfg: 7, sampler_name: 'euler', delay_ms: 400 } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'dies' } },
    }),
  );
  setTimeout(() => demo?.kill('SIGKILL'), 5_000);
  const run = await runMeasured(CLI, ['run', wf, '--server', url, '--local', '--out', join(work, 'out'), '--json'], { FLOWDECK_DATA_DIR: join(work, 'data'), FLOWDECK_UNREACHABLE_AFTER: '3' }, 60_000);
  expect(run.code, run.stderr).toBe(5);
  expect(run.stderr).toMatch(/the server stopped answering/i);
  expect(run.stderr).toMatch(/last known state: running/);
  expect(JSON.parse(run.stdout)).toMatchObject({ status: 'unknown' });
  // 5 s of work, then 3 s of failing polls (each poll retries for a few seconds at most).
  expect(run.ms).toBeLessThan(25_000);
});

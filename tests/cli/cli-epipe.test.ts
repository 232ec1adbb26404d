// `flowdeck ... | head`: a reader that closes the pipe early ends the command quietly (no EPIPE
// stack on stderr, exit 0), as command-line tools do.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { CLI } from '../support/cli';

const work = mkdtempSync(join(tmpdir(), 'flowdeck-epipe-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', FLOWDECK_DATA_DIR: work },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reader goes away before the command writes, like `head` after its lines.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`flowdeck ${args.join(' ')} did not end`));
    }, 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

it('ends quietly when stdout is closed by the reader', async () => {
  expect(existsSync(CLI), `${CLI} (the build runs in tests/support/build.ts)`).toBe(true);
  for (const args of [['help'], ['library', 'list']]) {
    const run = await runWithClosedStdout(args);
    expect(run.stderr, args.join(' ')).not.toMatch(/EPIPE|Error:|at /);
    expect(run.code, args.join(' ')).toBe(0);
  }
});

// `flowdeck run --out` killed with SIGKILL while the library's download writes the output and its
// --out copy from the one network read (a tee): each file is either complete under its final name
// or absent, leftovers carry partial names (NAME.part-<pid>-<hex>, the library's .incoming/<pid>-...),
// and the next run removes them.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DemoService } from '../../src/main/demo';
import { bigOutputDemo } from '../support/big-output-demo';
import { CLI, runCli } from '../support/cli';

const SIZE = 192 * 1024 * 1024;
let work: string;
let demo: DemoService;

beforeAll(async () => {
  expect(existsSync(CLI), `${CLI} (the build runs in tests/support/build.ts)`).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-cli-killed-tee-'));
  const big = join(work, 'big.bin');
  const block = randomBytes(1024 * 1024);
  writeFileSync(big, Buffer.concat(Array.from({ length: SIZE / block.length }, () => block)));
  const dataDir = join(work, 'demo-data');
  mkdirSync(dataDir);
  demo = bigOutputDemo('local', big, dataDir, { timeScale: 0 });
  await demo.start();
});

afterAll(async () => {
  await demo?.stop();
  rmSync(work, { recursive: true, force: true });
});

it('leaves each output complete or absent, never a truncated file under a real name; the next run sweeps the rest', async () => {
  const wf = join(work, 'big.json');
  writeFileSync(wf, JSON.stringify({ '1': { class_type: 'BigOutput', inputs: {} } }));
  const out = join(work, 'out');
  const dataDir = join(work, 'data');
  const child = spawn(process.execPath, [CLI, 'run', wf, '--server', demo.url, '--local', '--out', out], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', FLOWDECK_DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  // Kill as soon as the tee copy appears in --out (or at the end, if the run is faster than the poll).
  const deadline = Date.now() + 60_000;
  let sawPartial = false;
  while (Date.now() < deadline && child.exitCode === null) {
    if (existsSync(out) && readdirSync(out).some((n) => n.includes('.part-'))) {
      sawPartial = true;
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  child.kill('SIGKILL');
  await exited;

  const library = join(dataDir, 'library');
  const published = (dir: string): string[] =>
    existsSync(dir)
      ? readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile() && !e.parentPath.includes('.incoming'))
          .map((e) => join(e.parentPath, e.name))
      : [];
  for (const file of [...published(out), ...published(library)].filter((f) => !f.includes('.part-') && f.endsWith('.bin'))) {
    expect(statSync(file).size, `${file} is under its final name: it must be complete (${stderr})`).toBe(SIZE);
  }
  const partials = published(out).filter((f) => f.includes('.part-'));
  for (const f of partials) expect(f).toMatch(new RegExp(`\\.part-${child.pid}-[0-9a-f]{12}$`));
  if (sawPartial) expect(partials.length + published(out).length).toBeGreaterThan(0);

  // The next run into the same folder removes the dead run's partial files, and the library its staging.
  const next = await runCli(['run', wf, '--server', demo.url, '--local', '--out', out], { env: { FLOWDECK_DATA_DIR: dataDir }, timeoutMs: 60_000 });
  expect(next.code, next.stderr).toBe(0);
  expect(readdirSync(out).filter((n) => n.includes('.part-'))).toEqual([]);
  const incoming = join(library, '.incoming');
  expect(existsSync(incoming) ? readdirSync(incoming).filter((n) => n.startsWith(`${child.pid}-`)) : []).toEqual([]);
  expect(
    readdirSync(out)
      .filter((n) => n.endsWith('.bin'))
      .every((n) => statSync(join(out, n)).size === SIZE),
  ).toBe(true);
}, 120_000);

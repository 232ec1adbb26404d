// Local problems in the CLI are usage problems (exit 2) named with the path and the reason, found
// before any request: the server here counts every request and connection it gets.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../support/cli';

let work: string;
let server: Server;
let url: string;
let contacts = 0;

beforeAll(async () => {
  expect(existsSync(CLI), `${CLI} (the build runs in tests/support/build.ts)`).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-cli-local-'));
  server = createServer((_req, res) => {
    res.writeHead(500).end();
  });
  server.on('connection', () => (contacts += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFileSync(
    join(work, 'wf.json'),
    JSON.stringify({ '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } }, '2': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } } }),
  );
  mkdirSync(join(work, 'a-folder'));
  writeFileSync(join(work, 'empty.png'), '');
  writeFileSync(join(work, 'ok.png'), 'not empty');
  execFileSync('mkfifo', [join(work, 'pipe.png')]);
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

beforeEach(() => {
  contacts = 0;
});

const env = (): NodeJS.ProcessEnv => ({ FLOWDECK_DATA_DIR: join(work, 'data') });

describe('flowdeck run with a bad local file', () => {
  for (const [label, file, reason] of [
    ['a folder', 'a-folder', 'is a folder, not a file'],
    ['an empty file', 'empty.png', 'is empty (0 bytes)'],
    ['a FIFO (without hanging)', 'pipe.png', 'is a named pipe, not a regular file'],
    ['a missing file', 'missing.png', 'does not exist'],
  ] as const) {
    it(`--upload ${label}: exit 2 with the path and reason, no request`, async () => {
      const run = await runCli(['run', join(work, 'wf.json'), '--server', url, '--local', '--upload', `1.image=${join(work, file)}`], {
        env: env(),
        timeoutMs: 15_000,
      });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(`The file to upload ${join(work, file)} ${reason}.`);
      expect(contacts).toBe(0);
    });
  }

  it('--mask with a folder as the mask: exit 2, no request', async () => {
    const run = await runCli(
      ['run', join(work, 'wf.json'), '--server', url, '--local', '--mask', `1.image=${join(work, 'ok.png')},${join(work, 'a-folder')}`],
      { env: env() },
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`The mask ${join(work, 'a-folder')} is a folder, not a file.`);
    expect(contacts).toBe(0);
  });

  it('a FIFO as the workflow file: exit 2 at once', async () => {
    const run = await runCli(['run', join(work, 'pipe.png'), '--server', url, '--local'], { env: env(), timeoutMs: 15_000 });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('is a named pipe');
  });
});

describe('flowdeck watch on something that is not a usable folder', () => {
  it('a file: says it is a file, not a folder', async () => {
    const run = await runCli(['watch', join(work, 'ok.png'), '--workflow', join(work, 'wf.json'), '--bind', '1.image', '--server', url, '--local', '--once'], {
      env: env(),
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`${join(work, 'ok.png')} is a file, not a folder.`);
    expect(run.stderr).not.toContain('does not exist');
  });

  it('/ and /etc: refused as system folders before any request', async () => {
    for (const [dir, reason] of [
      ['/', 'is the root of the file system'],
      ['/etc', 'is a system folder'],
    ] as const) {
      const run = await runCli(
        ['watch', dir, '--workflow', join(work, 'wf.json'), '--bind', '1.image', '--server', url, '--local', '--once', '--out', join(work, 'out')],
        { env: env() },
      );
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(`${dir} ${reason}`);
    }
    expect(contacts).toBe(0);
  });
});

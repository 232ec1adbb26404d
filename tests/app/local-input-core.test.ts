// Local problems through the app core: the library folder refuses system folders, uploads refuse
// folders, empty files and pipes by path, and a mask or dropped image named ".." is refused as a
// name (no internal path, no EISDIR) before anything is written or sent.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectFactory } from '../../src/main/app/connect';
import { createAppCore, type AppCore } from '../../src/main/app/core';
import { createDemoStarter } from '../../src/main/app/demo';
import { ConfSettingsStore } from '../../src/main/config/conf-settings';
import { SessionSecretStore } from '../../src/main/config/secrets';

let core: AppCore;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-core-local-'));
  core = createAppCore({
    settings: new ConfSettingsStore(dataDir),
    secrets: new SessionSecretStore(),
    dataDir,
    startDemo: createDemoStarter({ timeScale: 0.05 }),
    connect: createConnectFactory(),
    version: '9.9.9',
    allowAnyPath: true,
    log: () => undefined,
  });
  await core.start();
});

afterAll(async () => {
  await core?.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

async function failure(name: string, input: unknown): Promise<{ code: string; message: string }> {
  const result = await core.invoke(name, input);
  if (result.ok) throw new Error(`${name} succeeded but should have failed`);
  return result.error;
}

describe('local problems through the core', () => {
  it('library.setFolder refuses system folders and the home folder, with the reason', async () => {
    expect(await failure('library.setFolder', { path: '/etc' })).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/^\/etc is a system folder/) });
    expect(await failure('library.setFolder', { path: '/' })).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/root of the file system/) });
  });

  it('upload.mask and upload.image refuse a file name that is not one plain name', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    for (const filename of ['..', '.', 'a/b.png']) {
      const error = await failure('upload.mask', { original: { name: 'x.png', subfolder: '', type: 'input' }, maskPng: png, filename });
      expect(error.code, filename).toBe('invalid_input');
      expect(error.message).not.toMatch(/EISDIR|uploads|flowdeck-core-local/);
    }
    const image = await failure('upload.image', { name: '..', bytes: png });
    expect(image).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/file name/) });
  });

  it('upload.image by path refuses a folder, an empty file and a named pipe at once', async () => {
    const dir = join(dataDir, 'inputs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'empty.png'), '');
    execFileSync('mkfifo', [join(dir, 'pipe.png')]);
    expect(await failure('upload.image', { path: dir })).toMatchObject({ code: 'invalid_input', message: `The image ${dir} is a folder, not a file.` });
    expect(await failure('upload.image', { path: join(dir, 'empty.png') })).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/is empty \(0 bytes\)/) });
    expect(await failure('upload.image', { path: join(dir, 'pipe.png') })).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/is a named pipe, not a regular file/) });
    expect(await failure('upload.image', { path: join(dir, 'missing.png') })).toMatchObject({ code: 'not_found', message: `The image ${join(dir, 'missing.png')} does not exist.` });
  });
});

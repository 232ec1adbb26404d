// Local problems through the app core: the library folder refuses system folders, uploads refuse
// folders, empty files and pipes by path, and a mask or dropped image named ".." is refused as a
// name (no internal path, no EISDIR) before anything is written or sent.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCoreInTemp, failure, type DemoCore } from '../support/demo-core';

let demo: DemoCore;

beforeAll(async () => {
  demo = demoCoreInTemp('flowdeck-core-local-');
  await demo.core.start();
});

afterAll(async () => {
  await demo?.close();
});

describe('local problems through the core', () => {
  it('library.setFolder refuses system folders and the home folder, with the reason', async () => {
    expect(await failure(demo.core, 'library.setFolder', { path: '/etc' })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/^\/etc is a system folder/),
    });
    expect(await failure(demo.core, 'library.setFolder', { path: '/' })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/root of the file system/),
    });
  });

  it('upload.mask and upload.image refuse a file name that is not one plain name', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    for (const filename of ['..', '.', 'a/b.png']) {
      const error = await failure(demo.core, 'upload.mask', { original: { name: 'x.png', subfolder: '', type: 'input' }, maskPng: png, filename });
      expect(error.code, filename).toBe('invalid_input');
      expect(error.message).not.toMatch(/EISDIR|uploads|flowdeck-core-local/);
    }
    const image = await failure(demo.core, 'upload.image', { name: '..', bytes: png });
    expect(image).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/file name/) });
  });

  it('upload.image by path refuses a folder, an empty file and a named pipe at once', async () => {
    const dir = join(demo.dataDir, 'inputs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'empty.png'), '');
    execFileSync('mkfifo', [join(dir, 'pipe.png')]);
    expect(await failure(demo.core, 'upload.image', { path: dir })).toMatchObject({
      code: 'invalid_input',
      message: `The image ${dir} is a folder, not a file.`,
    });
    expect(await failure(demo.core, 'upload.image', { path: join(dir, 'empty.png') })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/is empty \(0 bytes\)/),
    });
    expect(await failure(demo.core, 'upload.image', { path: join(dir, 'pipe.png') })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/is a named pipe, not a regular file/),
    });
    expect(await failure(demo.core, 'upload.image', { path: join(dir, 'missing.png') })).toMatchObject({
      code: 'not_found',
      message: `The image ${join(dir, 'missing.png')} does not exist.`,
    });
  });
});

// Local problems are named as local problems: files that cannot be uploaded (a folder, a FIFO, an
// empty or unreadable file), names that cannot be file names, and system folders that a hot folder
// or the library must not take over.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkUploadFile, LocalFileError, uploadNameProblem } from '@main/files/local-input';
import { systemFolderReason } from '@main/files/system-folders';

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'flowdeck-local-files-'));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

function problem(path: string): LocalFileError | null {
  try {
    checkUploadFile(path, 'file to upload');
    return null;
  } catch (error) {
    if (error instanceof LocalFileError) return error;
    throw error;
  }
}

describe('checkUploadFile', () => {
  it('accepts a regular file with bytes in it', () => {
    writeFileSync(join(work, 'ok.png'), 'x');
    expect(problem(join(work, 'ok.png'))).toBeNull();
  });

  it('names a folder, a missing file, an empty file and a FIFO, with the path, without hanging', () => {
    mkdirSync(join(work, 'dir'));
    expect(problem(join(work, 'dir'))?.message).toBe(`The file to upload ${join(work, 'dir')} is a folder, not a file.`);
    expect(problem(join(work, 'nope.png'))?.message).toBe(`The file to upload ${join(work, 'nope.png')} does not exist.`);
    writeFileSync(join(work, 'empty.png'), '');
    expect(problem(join(work, 'empty.png'))?.message).toBe(`The file to upload ${join(work, 'empty.png')} is empty (0 bytes).`);
    execFileSync('mkfifo', [join(work, 'pipe')]);
    expect(problem(join(work, 'pipe'))?.message).toBe(`The file to upload ${join(work, 'pipe')} is a named pipe, not a regular file.`);
    expect(problem(join(work, 'pipe'))?.path).toBe(join(work, 'pipe'));
  });

  it.skipIf(process.getuid?.() === 0)('names an unreadable file (skipped as root: root reads every file)', () => {
    writeFileSync(join(work, 'secret.png'), 'x');
    chmodSync(join(work, 'secret.png'), 0o000);
    expect(problem(join(work, 'secret.png'))?.message).toMatch(/cannot be read \(EACCES/);
  });
});

describe('uploadNameProblem', () => {
  it('refuses names that are not a single file name', () => {
    for (const name of ['..', '.', '', 'a/b.png', 'a\\b.png', '../x.png', 'a\0b', 'x'.repeat(256)])
      expect(uploadNameProblem(name), JSON.stringify(name)).not.toBeNull();
    for (const name of ['mask.png', 'my picture (2).png', 'été.png', '.hidden.png']) expect(uploadNameProblem(name), name).toBeNull();
  });
});

describe('systemFolderReason', () => {
  it('refuses the root, system folders (and inside them), the home folder itself', () => {
    for (const path of ['/', '/etc', '/etc/ssl', '/usr', '/usr/local/bin', '/bin', '/proc', '/sys/class', '/dev', homedir()]) {
      expect(systemFolderReason(path), path).not.toBeNull();
    }
    expect(systemFolderReason('/')).toMatch(/root of the file system/);
    expect(systemFolderReason(homedir())).toMatch(/home folder/);
    expect(systemFolderReason('C:\\Windows\\System32', { platform: 'win32', home: 'C:\\Users\\me' })).toMatch(/system folder/);
    expect(systemFolderReason('C:\\', { platform: 'win32', home: 'C:\\Users\\me' })).toMatch(/root/);
    expect(systemFolderReason('D:\\Photos', { platform: 'win32', home: 'C:\\Users\\me' })).toBeNull();
  });

  it('accepts ordinary folders, also through a link, and refuses a link to a system folder', () => {
    expect(systemFolderReason(join(homedir(), 'Pictures'))).toBeNull();
    expect(systemFolderReason(work)).toBeNull();
    symlinkSync('/etc', join(work, 'etc-link'));
    expect(systemFolderReason(join(work, 'etc-link'))).not.toBeNull();
  });
});

// A file the user names for upload is checked here, before any request: a folder, a named pipe
// (reading one blocks forever), an empty or unreadable file is a local problem with a path and a
// reason, not something to send and then misreport as a network failure. File names that arrive
// as text (the window's mask and dropped images) must be one plain file name, so they can never
// step out of the temporary folder they are written to.
import { closeSync, constants, openSync, statSync, type Stats } from 'node:fs';
import { resolve } from 'node:path';

export class LocalFileError extends Error {
  readonly path: string;
  readonly code: 'missing' | 'not_a_file' | 'empty' | 'unreadable';
  constructor(path: string, code: LocalFileError['code'], message: string) {
    super(message);
    this.name = 'LocalFileError';
    this.path = path;
    this.code = code;
  }
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** Checks that `path` is a regular, non-empty, readable file; returns its absolute path. `what` names it in messages. */
export function checkUploadFile(path: string, what: string): string {
  const full = resolve(path);
  let info: Stats;
  try {
    info = statSync(full);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new LocalFileError(full, 'missing', `The ${what} ${full} does not exist.`);
    throw new LocalFileError(full, 'unreadable', `The ${what} ${full} cannot be read (${code ?? String(error)}).`);
  }
  if (info.isDirectory()) throw new LocalFileError(full, 'not_a_file', `The ${what} ${full} is a folder, not a file.`);
  if (!info.isFile()) throw new LocalFileError(full, 'not_a_file', `The ${what} ${full} is ${kindOf(info)}, not a regular file.`);
  if (info.size === 0) throw new LocalFileError(full, 'empty', `The ${what} ${full} is empty (0 bytes).`);
  try {
    // Opening proves the permission (a regular file: O_NONBLOCK only guards against a swap to a pipe).
    closeSync(openSync(full, constants.O_RDONLY | constants.O_NONBLOCK));
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new LocalFileError(
      full,
      'unreadable',
      `The ${what} ${full} cannot be read (${e.code ? `${e.code}: ${e.message.replace(/^\w+: /, '').replace(/, open .*$/, '')}` : String(error)}).`,
    );
  }
  return full;
}

/** Why `name` cannot be used as the name of an uploaded file (a sentence), or null when it can. */
export function uploadNameProblem(name: string): string | null {
  if (name.trim() === '' || name === '.' || name === '..') return `"${name}" is not a file name.`;
  if (/[/\\]/.test(name)) return `The file name "${name}" must not contain / or \\.`;

  if (/[\u0000-\u001f\u007f]/.test(name)) return 'The file name contains control characters.';
  if (Buffer.byteLength(name, 'utf8') > 255) return 'The file name is longer than 255 bytes.';
  return null;
}

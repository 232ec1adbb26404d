// One process per hot folder: two `flowdeck watch` runs on the same folder would each take every
// file. The lock is held by the operating system for the life of the process, never by a file's
// contents: a pid file needs a "stale owner" takeover (read, decide, delete, create), and two
// processes taking over the same dead owner's file both won it; deleting the file let a second
// owner in beside a live one. Here the kernel grants the lock to exactly one process and frees it
// when that process ends, however it ends (kill -9 included), so there is no takeover at all:
// - Linux: a listening socket in the abstract namespace (no file; bound by one process only);
// - Windows: a named pipe (the same guarantees);
// - macOS and the BSDs: the lock file opened with O_EXLOCK (flock semantics, freed on exit).
// A second process asks the owner for its pid (socket) or reads it from the file, for the message.
import { createHash } from 'node:crypto';
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { dirname, resolve } from 'node:path';

export class FolderLockedError extends Error {
  readonly pid: number;
  constructor(pid: number, what: string) {
    super(`Another Flowdeck process (${pid > 0 ? `pid ${pid}` : 'pid unknown'}) is already watching ${what}. Stop it first, or watch another folder.`);
    this.name = 'FolderLockedError';
    this.pid = pid;
  }
}

/** O_EXLOCK on macOS and the BSDs (Node exposes no constant for it); O_NONBLOCK makes a held lock fail at once. */
const O_EXLOCK = 0x20;
const EXLOCK_PLATFORMS: ReadonlySet<string> = new Set(['darwin', 'freebsd', 'openbsd', 'netbsd']);

/** Where the socket-based lock for `path` lives, or null elsewhere (the file itself is locked there). */
function socketEndpoint(path: string): string | null {
  const key = createHash('sha256').update(resolve(path)).digest('hex').slice(0, 40);
  if (process.platform === 'linux' || process.platform === 'android') return `\0flowdeck-lock-${key}`;
  if (process.platform === 'win32') return `\\\\.\\pipe\\flowdeck-lock-${key}`;
  return null;
}

/** Takes the lock for `path` (describing the folder as `what` in the error); resolves to its release. */
export async function acquireFolderLock(path: string, what: string): Promise<() => void> {
  const endpoint = socketEndpoint(path);
  if (endpoint === null) {
    if (!EXLOCK_PLATFORMS.has(process.platform))
      throw new Error(`Flowdeck has no folder lock for ${process.platform}, so it cannot make sure only one process watches ${what}.`);
    return acquireFileLock(path, what);
  }
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const server = await listenOn(endpoint);
    if (server) {
      server.unref(); // the lock must not keep the process alive
      let released = false;
      return () => {
        if (released) return;
        released = true;
        server.close();
      };
    }
    const owner = await askOwner(endpoint);
    if (owner !== null) throw new FolderLockedError(owner, what);
    // The owner let go between our two steps: try again.
  }
  throw new FolderLockedError(0, what);
}

/** A server listening on `endpoint`, or null when another process holds it. */
function listenOn(endpoint: string): Promise<Server | null> {
  return new Promise((resolveListen, reject) => {
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end(`${process.pid}\n`);
    });
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolveListen(null);
      else reject(error);
    });
    server.listen(endpoint, () => resolveListen(server));
  });
}

/** The pid of the process holding `endpoint` (0 when it does not say in time), or null when nobody holds it any more. */
function askOwner(endpoint: string): Promise<number | null> {
  return new Promise((resolveOwner) => {
    let answer = '';
    const socket = connect(endpoint);
    const done = (value: number | null): void => {
      socket.destroy();
      clearTimeout(timer);
      resolveOwner(value);
    };
    const timer = setTimeout(() => done(0), 2000);
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
      if (answer.length > 32) done(0);
    });
    socket.on('end', () => {
      const pid = Number.parseInt(answer.trim(), 10);
      done(Number.isInteger(pid) && pid > 0 ? pid : 0);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? null : 0));
  });
}

function acquireFileLock(path: string, what: string): () => void {
  mkdirSync(dirname(path), { recursive: true });
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT | O_EXLOCK | constants.O_NONBLOCK, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') throw error;
    let owner = 0;
    try {
      owner = Number.parseInt(readFileSync(path, 'utf8').trim(), 10) || 0;
    } catch {
      // unreadable: the message says the pid is unknown
    }
    throw new FolderLockedError(owner, what);
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`, 0);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    closeSync(fd); // closing the descriptor frees the lock; the file stays for the next owner
  };
}

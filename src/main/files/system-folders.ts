// Folders Flowdeck must not take over: a hot folder moves and writes files in its folder, the
// library fills its folder with dated subfolders. Pointing either at the root of the disk, a system
// folder or the home folder itself is a slip (a missing path segment), never an intent, so it is
// refused with the reason. Used by the hot-folder configuration (app and `flowdeck watch`) and the
// library folder setting.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/** Refused together with everything inside them. */
const POSIX_SYSTEM = [
  '/etc',
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/boot',
  '/proc',
  '/sys',
  '/dev',
  '/run',
  '/System',
  '/Library',
  '/private/etc',
  '/private/var/db',
];
/** Refused themselves only: their subfolders are ordinary places (a user's folders, /var/tmp ...). */
const POSIX_EXACT = ['/var', '/home', '/Users', '/opt', '/root', '/private', '/Volumes', '/mnt', '/media', '/srv'];
const WIN_SYSTEM = ['\\Windows', '\\Program Files', '\\Program Files (x86)', '\\ProgramData'];
const WIN_EXACT = ['\\Users'];

export interface SystemFolderOptions {
  platform?: NodeJS.Platform;
  home?: string;
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path; // not there yet: judged by its name
  }
}

/** Why `folder` must not be used as a working folder (a sentence), or null when it may. */
export function systemFolderReason(folder: string, options: SystemFolderOptions = {}): string | null {
  const platform = options.platform ?? process.platform;
  const windows = platform === 'win32';
  const path = windows ? win32 : posix;
  const home = path.resolve(options.home ?? homedir());
  const candidates = new Set([path.resolve(folder)]);
  if (platform === process.platform) candidates.add(realOrSame(path.resolve(folder)));
  for (const full of candidates) {
    const key = windows ? full.toLowerCase() : full;
    const same = (a: string, b: string): boolean => (windows ? a.toLowerCase() === b.toLowerCase() : a === b);
    if (path.parse(full).root === full) return `${folder} is the root of the file system; choose a folder of your own.`;
    if (same(full, home)) return `${folder} is your home folder itself; choose (or create) a folder inside it.`;
    const rel = windows ? key.slice(path.parse(full).root.length - 1) : key; // "C:\Windows" -> "\windows"
    const system = windows ? WIN_SYSTEM.map((s) => s.toLowerCase()) : POSIX_SYSTEM;
    const exact = windows ? WIN_EXACT.map((s) => s.toLowerCase()) : POSIX_EXACT;
    const sep = windows ? '\\' : '/';
    if (system.some((s) => rel === s || rel.startsWith(s + sep)) || exact.includes(rel)) return `${folder} is a system folder; choose a folder of your own.`;
  }
  return null;
}

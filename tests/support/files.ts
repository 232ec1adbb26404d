// Reading back what a test left on disk.
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Every regular file under `dir`, as "/"-separated paths relative to it, sorted; none when `dir` is missing. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(relative(dir, full).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

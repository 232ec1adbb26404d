// Partial files (NAME.part-...) that a killed run left in an output folder are this program's own
// and are removed at the next run; a live process's partial file and foreign files stay.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOwnPartialName, partialPathFor, sweepStalePartials } from '@main/files/partial-files';

let work: string;
let deadPid: number;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'flowdeck-partials-'));
  deadPid = spawnSync(process.execPath, ['-e', '0']).pid!; // ran and exited: its pid names no live process
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('partial files', () => {
  it('are named after the final file, with this process id', () => {
    const temp = partialPathFor(join(work, 'out.png'));
    expect(temp.startsWith(join(work, `out.png.part-${process.pid}-`))).toBe(true);
    expect(isOwnPartialName(temp.split('/').pop()!)).toBe(true);
    expect(partialPathFor(join(work, 'out.png'))).not.toBe(temp);
  });

  it('left by a dead process, or unowned and old, are removed; live, recent and foreign ones stay', async () => {
    const dir = mkdtempSync(join(work, 'sweep-'));
    const stale = [`a.png.part-${deadPid}-0123456789ab`, `b.png.json.part-${deadPid}-x1y2z3`, 'c.png.part-a1b2c3d4e5f6'];
    const kept = [
      `live.png.part-${process.pid}-0123456789ab`,
      'recent.png.part-0a1b2c3d4e5f',
      'notes.part-1',
      'x.png.part-zzzz',
      'report.part-final.txt',
      'a.png',
    ];
    for (const name of [...stale, ...kept]) writeFileSync(join(dir, name), 'partial');
    const hourAgo = new Date(Date.now() - 3600_000);
    for (const name of [...stale, 'notes.part-1', 'x.png.part-zzzz', 'report.part-final.txt']) utimesSync(join(dir, name), hourAgo, hourAgo);
    const removed = await sweepStalePartials(dir);
    expect(removed.map((p) => p.split('/').pop()).sort()).toEqual([...stale].sort());
    expect(readdirSync(dir).sort()).toEqual([...kept].sort());
  });

  it('a missing folder is nothing to sweep', async () => {
    expect(await sweepStalePartials(join(work, 'absent'))).toEqual([]);
    expect(existsSync(join(work, 'absent'))).toBe(false);
  });
});

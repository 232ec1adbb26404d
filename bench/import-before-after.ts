// The import of one output (index row + file, and its grid thumbnail), before and after a change, side
// by side in one run: the tree at --base (default b83feff, the JavaScript codecs) is unpacked with
// `git archive` into a temporary folder beside this tree's node_modules, this tree's
// bench/library-index.ts is copied into it, and `library-index.ts --import-only` runs in each tree in
// turn, alternating, each with its own library of --items synthetic rows (made on the first round).
// CPU per import is process.cpuUsage of the bench process (every thread: sharp's libvips and libuv
// workers included; the bench cross-checks it against /proc/self/stat over its whole loop).
// Beside them, the row + file of the hot-folder path (the download's tee copy handed over), and the
// wall time of the row + file and of the thumbnail (an fsync waits for the disk without spending CPU).
// Run: npx tsx bench/import-before-after.ts [--base COMMIT] [--rounds 3] [--items 20000] [--imports 20]
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { base: { type: 'string' }, rounds: { type: 'string' }, items: { type: 'string' }, imports: { type: 'string' } },
});
const BASE = values.base ?? 'b83feff';
const ROUNDS = Number(values.rounds ?? 3);
const ITEMS = values.items ?? '20000';
const IMPORTS = values.imports ?? '20';
const here = resolve(import.meta.dirname, '..');

interface Figures {
  row: number;
  thumbnail: number;
  together: number;
  /** Row + file when a hot folder hands over the download's tee copy and digest (NaN where not measured). */
  tee: number;
  /** Wall time p50 of the row + file and of the thumbnail (NaN from a bench that does not print it). */
  rowWall: number;
  thumbnailWall: number;
  first: string;
  check: string;
}

/** The figures from library-index.ts's two import lines. */
function parse(output: string): Figures {
  const main = /index row \+ file p50 ([\d.]+) ms.*thumbnail p50 ([\d.]+) ms.*together p50 ([\d.]+) ms/.exec(output);
  const extra = /the first \(loading codecs\): (.*); all \d+ imports: (.*)/.exec(output);
  if (!main || !extra) throw new Error(`no import figures in the bench's output:\n${output}`);
  const tee = /hot-folder path .*index row \+ file p50 ([\d.]+) ms/.exec(output);
  const wall = /wall: index row \+ file p50 ([\d.]+) ms, thumbnail p50 ([\d.]+) ms/.exec(output);
  return {
    row: Number(main[1]),
    thumbnail: Number(main[2]),
    together: Number(main[3]),
    tee: tee ? Number(tee[1]) : NaN,
    rowWall: wall ? Number(wall[1]) : NaN,
    thumbnailWall: wall ? Number(wall[2]) : NaN,
    first: extra[1]!,
    check: extra[2]!,
  };
}

function run(tree: string, db: string): Figures {
  const args = ['tsx', 'bench/library-index.ts', '--import-only', '--items', ITEMS, '--imports', IMPORTS, '--db', db];
  const child = spawnSync('npx', args, { cwd: tree, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`the bench failed in ${tree}:\n${child.stdout}\n${child.stderr}`);
  return parse(child.stdout);
}

const work = mkdtempSync(join(tmpdir(), 'flowdeck-bench-import-'));
try {
  const before = join(work, 'before');
  mkdirSync(before);
  execFileSync('sh', ['-c', `git -C "${here}" archive ${BASE} | tar -x -C "${before}"`]);
  symlinkSync(join(here, 'node_modules'), join(before, 'node_modules'));
  copyFileSync(join(here, 'bench/library-index.ts'), join(before, 'bench/library-index.ts'));
  const sides = [
    { name: `before (${BASE})`, tree: before, db: join(work, 'db-before'), runs: [] as Figures[] },
    { name: 'after (this tree)', tree: here, db: join(work, 'db-after'), runs: [] as Figures[] },
  ];
  console.log(`import of one 512x512 PNG output, CPU p50 of ${IMPORTS} imports per round, libraries of ${ITEMS} rows, ${ROUNDS} rounds alternating`);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const figures = run(side.tree, side.db);
      side.runs.push(figures);
      const load = loadavg()[0]!.toFixed(1);
      console.log(
        `  round ${round + 1} ${side.name.padEnd(20)} row + file ${figures.row.toFixed(2)}  thumbnail ${figures.thumbnail.toFixed(2)}  together ${figures.together.toFixed(2)} ms; wall row + file ${figures.rowWall.toFixed(2)}  thumbnail ${figures.thumbnailWall.toFixed(2)} ms; hot-folder row + file ${figures.tee.toFixed(2)} ms  (load ${load}; ${figures.first}; ${figures.check})`,
      );
    }
  }
  const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  const [b, a] = sides.map((side) => ({
    row: median(side.runs.map((r) => r.row)),
    thumbnail: median(side.runs.map((r) => r.thumbnail)),
    together: median(side.runs.map((r) => r.together)),
    tee: median(side.runs.map((r) => r.tee)),
    rowWall: median(side.runs.map((r) => r.rowWall)),
    thumbnailWall: median(side.runs.map((r) => r.thumbnailWall)),
  }));
  console.log('median of the rounds, CPU ms:        before     after   after/before');
  const labels = {
    row: 'row + file',
    thumbnail: 'thumbnail',
    together: 'together',
    tee: 'row + file, hot folder (tee copy)',
    rowWall: 'wall (not CPU): row + file',
    thumbnailWall: 'wall (not CPU): thumbnail',
  };
  for (const key of ['row', 'thumbnail', 'together', 'tee', 'rowWall', 'thumbnailWall'] as const) {
    console.log(`  ${labels[key].padEnd(34)} ${b![key].toFixed(2).padStart(6)}    ${a![key].toFixed(2).padStart(6)}    ${(a![key] / b![key]).toFixed(2)}x`);
  }
  console.log(`target: together < 5 ms: ${a!.together < 5 ? 'met' : 'NOT met'}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

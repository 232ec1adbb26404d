#!/usr/bin/env node
// `npm run bench`: every benchmark, one after another in one run, each printing its figures.
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const benches =
  process.argv.length > 2
    ? process.argv.slice(2)
    : [
        'bench/frame-decode.ts',
        'bench/client-overhead.ts',
        'bench/transfer.ts',
        'bench/preview-pipeline.ts',
        'bench/app-cost.ts',
        'bench/preview-display.ts',
        'bench/long-day.ts',
        'bench/mask-painter.ts',
        'bench/library-index.ts',
        'bench/library-grid.ts',
        'bench/hot-folders.ts',
        'bench/run-vs-curl.ts',
        'bench/watch-vs-batch.ts',
        'bench/upload-vs-curl.ts',
        'bench/pool.ts',
        'bench/ui-convert.ts',
        'bench/v2-shared-mask.ts',
        'bench/v2-vs-sdk.ts',
      ];
let failed = 0;
for (const bench of benches) {
  console.log(`\n=== ${bench}`);
  const result = spawnSync('npx', ['tsx', bench], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);

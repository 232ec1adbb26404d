// A demo service in its own process, so a benchmark's client and server do not share an event
// loop. Prints one JSON line {url, apiKey, ref} and runs until SIGTERM.
//   demo-child.ts FLAVOUR [BIG_FILE]        With a big file, the file is also an output (`ref`), and
//     the node library gains BigOutput (tests/support/big-output-demo.ts): a node whose every run
//     outputs that file at once, so a benchmark of a whole job measures the client's work, not the
//     demo's generating 1 GiB.
//   demo-child.ts FLAVOUR --ledger FILE     The node library gains FixedDelay and the service notes
//     each prompt it accepts, starts and finishes in FILE (tests/support/ledger-demo.ts), so a
//     benchmark of a pool can count each server's jobs even after killing it with SIGKILL. Its data
//     folder is made beside FILE and left there (a killed service cannot remove it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DemoService } from '../../src/main/demo';
import { bigOutputDemo } from '../../tests/support/big-output-demo';
import { ledgerDemo } from '../../tests/support/ledger-demo';

const flavour = process.argv[2] === 'local' ? 'local' : 'cloud';
const ledger = process.argv[3] === '--ledger' ? process.argv[4] : undefined;
const bigFile = ledger === undefined ? process.argv[3] : undefined;
const ownDataDir = bigFile ? mkdtempSync(join(tmpdir(), 'flowdeck-bench-demo-')) : undefined;
const options = { timeScale: 0, maxUploadBytes: 8 * 1024 ** 3 };
const demo = ledger
  ? ledgerDemo(flavour, ledger, mkdtempSync(join(dirname(ledger), 'demo-data-')), options)
  : bigFile && ownDataDir
    ? bigOutputDemo(flavour, bigFile, ownDataDir, options)
    : new DemoService({ ...options, flavour });
await demo.start();
const ref = bigFile ? await demo.addOutputFile(bigFile, 'big-output.bin') : null;
process.stdout.write(`${JSON.stringify({ url: demo.url, apiKey: demo.apiKey, ref })}\n`);
process.on('SIGTERM', () => {
  void demo.stop().then(() => {
    // A data folder given to the service is not removed by it.
    if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    process.exit(0);
  });
});

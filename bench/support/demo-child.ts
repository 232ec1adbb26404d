// A demo service in its own process, so a benchmark's client and server do not share an event
// loop. Prints one JSON line {url, apiKey, ref} and runs until SIGTERM.
// With a big file (argv[3]), the file is also an output (`ref`), and the node library gains
// BigOutput (tests/support/big-output-demo.ts): a node whose every run outputs that file at once,
// so a benchmark of a whole job measures the client's work, not the demo's generating 1 GiB.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DemoService } from '../../src/main/demo';
import { bigOutputDemo } from '../../tests/support/big-output-demo';

const flavour = process.argv[2] === 'local' ? 'local' : 'cloud';
const bigFile = process.argv[3];
const dataDir = bigFile ? mkdtempSync(join(tmpdir(), 'flowdeck-bench-demo-')) : undefined;
const options = { timeScale: 0, maxUploadBytes: 8 * 1024 ** 3 };
const demo = bigFile && dataDir ? bigOutputDemo(flavour, bigFile, dataDir, options) : new DemoService({ ...options, flavour });
await demo.start();
const ref = bigFile ? await demo.addOutputFile(bigFile, 'big-output.bin') : null;
process.stdout.write(`${JSON.stringify({ url: demo.url, apiKey: demo.apiKey, ref })}\n`);
process.on('SIGTERM', () => {
  void demo.stop().then(() => {
    // A data folder given to the service is not removed by it.
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});

// A demo service in its own process, so a benchmark's client and server do not share an event
// loop. Prints one JSON line {url, apiKey, bigFile?} and runs until SIGTERM.
import { DemoService } from '../../src/main/demo';

const flavour = process.argv[2] === 'local' ? 'local' : 'cloud';
const bigFile = process.argv[3];
const demo = new DemoService({ flavour, timeScale: 0, maxUploadBytes: 8 * 1024 ** 3 });
await demo.start();
const ref = bigFile ? await demo.addOutputFile(bigFile, 'big-output.bin') : null;
process.stdout.write(`${JSON.stringify({ url: demo.url, apiKey: demo.apiKey, ref })}\n`);
process.on('SIGTERM', () => {
  void demo.stop().then(() => process.exit(0));
});

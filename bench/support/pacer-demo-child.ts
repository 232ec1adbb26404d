// The pacer demo (pacer-demo.ts) in its own process, for bench/support/core-child.ts: started with
// the key the app core made up for its demo profile. Prints one JSON line {url} and runs until SIGTERM.
//   pacer-demo-child.ts API_KEY [TIME_SCALE]
import { pacerDemo } from './pacer-demo';

const apiKey = process.argv[2];
if (!apiKey) throw new Error('usage: pacer-demo-child.ts API_KEY [TIME_SCALE]');
const timeScale = process.argv[3] === undefined ? 1 : Number(process.argv[3]);
const demo = pacerDemo({ host: '127.0.0.1', port: 0, apiKey, timeScale });
await demo.start();
process.stdout.write(`${JSON.stringify({ url: demo.url })}\n`);
process.on('SIGTERM', () => void demo.stop().then(() => process.exit(0)));

// One download through the real client, in its own process so its memory can be measured:
// prints {seconds, bytes, rssBeforeMb, maxRssMb}.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceClient } from '@main/service/client';

const [url, key, refJson] = process.argv.slice(2) as [string, string, string];
const ref = JSON.parse(refJson) as { filename: string; subfolder: string; type: string };
const client = new ServiceClient({ kind: key === '-' ? 'local' : 'cloud', baseUrl: url }, { apiKey: () => (key === '-' ? null : key) });
const dir = mkdtempSync(join(tmpdir(), 'flowdeck-bench-dl-'));
globalThis.gc?.();
const rssBefore = process.memoryUsage().rss;
const start = process.hrtime.bigint();
const result = await client.download(ref, dir);
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
// maxRSS is in kilobytes: the high-water mark of the whole process life.
const maxRss = process.resourceUsage().maxRSS * 1024;
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ seconds, bytes: result.bytes, rssBeforeMb: rssBefore / 2 ** 20, maxRssMb: maxRss / 2 ** 20 })}\n`);

// One upload through the real client (local flavour, the limit the server announces), in a process
// of its own. Prints {seconds, cpuSeconds, rssBeforeMb, maxRssMb}: the upload's wall and CPU time
// (user + system, every thread), the RSS just before it and the process's peak RSS.
import { ServiceClient } from '@main/service/client';

const [url, file] = process.argv.slice(2) as [string, string];
const client = new ServiceClient({ kind: 'local', baseUrl: url }, { apiKey: () => null });
// The server's max_upload_size, as `flowdeck run` reads it before uploading (the local default is 100 MiB).
await client.discover();
const rssBeforeMb = process.memoryUsage().rss / 2 ** 20;
const cpu = process.cpuUsage();
const start = process.hrtime.bigint();
await client.uploadImage(file, { type: 'input', overwrite: true });
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
const used = process.cpuUsage(cpu);
process.stdout.write(
  `${JSON.stringify({ seconds, cpuSeconds: (used.user + used.system) / 1e6, rssBeforeMb, maxRssMb: (process.resourceUsage().maxRSS * 1024) / 2 ** 20 })}\n`,
);

// One upload through the real client (local flavour, the limit the server announces), prints {seconds}.
import { ServiceClient } from '@main/service/client';

const [url, file] = process.argv.slice(2) as [string, string];
const client = new ServiceClient({ kind: 'local', baseUrl: url }, { apiKey: () => null });
// The server's max_upload_size, as `flowdeck run` reads it before uploading (the local default is 100 MiB).
await client.discover();
const start = process.hrtime.bigint();
await client.uploadImage(file, { type: 'input', overwrite: true });
process.stdout.write(
  `${JSON.stringify({ seconds: Number(process.hrtime.bigint() - start) / 1e9, maxRssMb: (process.resourceUsage().maxRSS * 1024) / 2 ** 20 })}\n`,
);

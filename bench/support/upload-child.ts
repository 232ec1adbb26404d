// One upload through the real client (local flavour: no size limit), prints {seconds}.
import { ServiceClient } from '../../src/main/service/client';

const [url, file] = process.argv.slice(2) as [string, string];
const client = new ServiceClient({ kind: 'local', baseUrl: url }, { apiKey: () => null });
const start = process.hrtime.bigint();
await client.uploadImage(file, { type: 'input', overwrite: true });
process.stdout.write(`${JSON.stringify({ seconds: Number(process.hrtime.bigint() - start) / 1e9, maxRssMb: (process.resourceUsage().maxRSS * 1024) / 2 ** 20 })}\n`);

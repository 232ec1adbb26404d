// The CPU of the client's small JSON POSTs (a workflow's submit, one per image in a batch) over
// the two transports HttpTransport has: node:http (what it uses for a request with a body) and
// fetch (what it used before, and still uses when a caller injects its own fetch, as here). Each
// run is a fresh process sending `requests` submits through ServiceClient, 8 at once, to a server
// in this process that answers at once; the child times its own loop with process.cpuUsage (the
// first requests' compiling included, as a CLI run pays it; node's and tsx's start excluded).
//   npx tsx bench/json-post.ts [requests] [runs]     (default 400 requests, 5 runs per transport)
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceClient } from '@main/service/client';
import { loadAverage, median } from './support/cli-bench';

const CONCURRENCY = 8;
const WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'img-0001.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'bench/json-post' } },
};

async function child(url: string, transport: string, requests: number): Promise<void> {
  const options = transport === 'fetch' ? { apiKey: () => null, fetch: globalThis.fetch.bind(globalThis) } : { apiKey: () => null };
  const client = new ServiceClient({ kind: 'local', baseUrl: url }, options);
  const start = process.cpuUsage();
  let sent = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < requests) {
        sent += 1;
        await client.submit(WORKFLOW, { clientId: 'bench' });
      }
    }),
  );
  const used = process.cpuUsage(start);
  console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000 }));
}

function runChild(url: string, transport: string, requests: number): Promise<number> {
  return new Promise((resolveRun, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, 'child', url, transport, String(requests)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.on('exit', (code) =>
      code === 0 ? resolveRun((JSON.parse(out.trim().split('\n').pop()!) as { cpuMs: number }).cpuMs) : reject(new Error(`child exited ${code}`)),
    );
  });
}

if (process.argv[2] === 'child') {
  await child(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
} else {
  const requests = Math.max(1, Number(process.argv[2] ?? 400));
  const runs = Math.max(1, Number(process.argv[3] ?? 5));
  let id = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      id += 1;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ prompt_id: `p-${id}`, number: id, node_errors: {} }));
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const loadBefore = loadAverage();
  const cpu: Record<string, number[]> = { 'node:http': [], fetch: [] };
  for (let run = 0; run < runs; run += 1) {
    for (const transport of run % 2 === 0 ? ['node:http', 'fetch'] : ['fetch', 'node:http']) cpu[transport]!.push(await runChild(url, transport, requests));
  }
  server.close();
  const perRequest = (t: string): number => median(cpu[t]!) / requests;
  console.log(
    `${requests} submits (ServiceClient, ${CONCURRENCY} at once) per fresh process, ${runs} runs per transport, alternating; CPU of the client's loop:`,
  );
  for (const t of ['node:http', 'fetch'])
    console.log(`  ${t.padEnd(9)} ${perRequest(t).toFixed(3)} ms per request (runs: ${cpu[t]!.map((c) => (c / requests).toFixed(3)).join(', ')})`);
  console.log(`  node:http / fetch: ${(perRequest('node:http') / perRequest('fetch')).toFixed(2)}x`);
  console.log(`  load average before ${loadBefore}, after ${loadAverage()} (2 cores, shared)`);
}

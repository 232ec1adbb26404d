// As cheap a Node client as we know how to write, for bench/watch-vs-batch.ts: the same requests as
// bench/batch-client.ts (upload, submit with a chosen id, one WebSocket, download), but over
// node:http with a keep-alive agent, a multipart body built as one Buffer, and nothing else: no
// journal, no hash, no sidecar, no library, no fsync, one buffered write per output. No Flowdeck code.
// It is the floor under the watch CPU target: any client making these requests in Node spends at
// least this much, so when it alone is above half the batch client's CPU, the target (Flowdeck,
// with all its bookkeeping, at <= 0.5x the batch client) is out of reach in Node on this machine.
//   node lean-client.mjs SERVER_URL IN_DIR OUT_DIR WORKFLOW.json NODE.INPUT [CONCURRENCY]
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { extname, join } from 'node:path';
import { JobEnds, runFolder } from './support/batch-jobs';

const [server, inDir, outDir, workflowPath, bind, concurrencyText] = process.argv.slice(2);
if (!server || !inDir || !outDir || !workflowPath || !bind) {
  console.error('usage: lean-client SERVER_URL IN_DIR OUT_DIR WORKFLOW.json NODE.INPUT [CONCURRENCY]');
  process.exit(2);
}
const concurrency = Number(concurrencyText ?? 8);
const [bindNode, bindInput] = bind.split('.') as [string, string];
const workflowText = readFileSync(workflowPath, 'utf8');
const clientId = randomUUID();
const base = new URL(server);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

/** One request; the whole answer body as a Buffer, or an error naming what failed. */
function exchange(method: string, path: string, headers: Record<string, string | number>, body: Buffer | null, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: base.hostname, port: base.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const answer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        if ((res.statusCode ?? 0) >= 400) reject(new Error(`${what}: HTTP ${res.statusCode} ${answer.toString()}`));
        else resolve(answer);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

const ends = await JobEnds.open(server, clientId);

async function runOne(name: string): Promise<number> {
  const boundary = `----lean${randomUUID()}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="image"; filename="${name}"\r\ncontent-type: image/png\r\n\r\n`),
    await readFile(join(inDir!, name)),
    Buffer.from(`\r\n--${boundary}\r\ncontent-disposition: form-data; name="type"\r\n\r\ninput\r\n--${boundary}--\r\n`),
  ]);
  const uploaded = JSON.parse(
    (
      await exchange(
        'POST',
        '/api/upload/image',
        { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
        body,
        `upload ${name}`,
      )
    ).toString(),
  ) as { name: string; subfolder: string };
  const prompt = JSON.parse(workflowText) as Record<string, { inputs: Record<string, unknown> }>;
  prompt[bindNode]!.inputs[bindInput] = uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
  const promptId = randomUUID();
  const ended = ends.expect(promptId);
  const submit = Buffer.from(JSON.stringify({ prompt, client_id: clientId, prompt_id: promptId }));
  await exchange('POST', '/api/prompt', { 'content-type': 'application/json', 'content-length': submit.length }, submit, `submit ${name}`);
  const outputs = await ended();
  const stem = name.slice(0, name.length - extname(name).length);
  for (const output of outputs) {
    const query = new URLSearchParams({ filename: output.filename, subfolder: output.subfolder, type: output.type });
    await writeFile(join(outDir!, `${stem}-${output.filename}`), await exchange('GET', `/api/view?${query}`, {}, null, `download ${output.filename}`));
  }
  return outputs.length;
}

await runFolder(inDir, outDir, concurrency, runOne);
ends.close();
agent.destroy();

// A plain batch client, the yardstick of bench/watch-vs-batch.ts: no Flowdeck code, only fetch and
// ws, as someone would write one against a local server. For every image in a folder, CONCURRENCY
// at a time: upload it, submit the workflow with the image bound to NODE.INPUT, follow the job on
// one WebSocket, download its outputs into the output folder. Prints {jobs, outputs, seconds}.
//   node batch-client.mjs SERVER_URL IN_DIR OUT_DIR WORKFLOW.json NODE.INPUT [CONCURRENCY]
// (watch-vs-batch bundles it with esbuild and runs it with plain node, as the CLI is run.)
import { randomUUID } from 'node:crypto';
import { mkdirSync, openAsBlob, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import WebSocket from 'ws';

interface FileRef {
  filename: string;
  subfolder: string;
  type: string;
}

interface Waiter {
  outputs: FileRef[];
  done: Promise<void>;
  finish(error?: Error): void;
}

const [server, inDir, outDir, workflowPath, bind, concurrencyText] = process.argv.slice(2);
if (!server || !inDir || !outDir || !workflowPath || !bind) {
  console.error('usage: batch-client SERVER_URL IN_DIR OUT_DIR WORKFLOW.json NODE.INPUT [CONCURRENCY]');
  process.exit(2);
}
const concurrency = Number(concurrencyText ?? 8);
const [bindNode, bindInput] = bind.split('.') as [string, string];
const workflow = JSON.parse(readFileSync(workflowPath, 'utf8')) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
const clientId = randomUUID();
const waiters = new Map<string, Waiter>();

function waiterFor(promptId: string): Waiter {
  let waiter = waiters.get(promptId);
  if (!waiter) {
    let finish!: (error?: Error) => void;
    const done = new Promise<void>((resolve, reject) => (finish = (error) => (error ? reject(error) : resolve())));
    waiter = { outputs: [], done, finish };
    waiters.set(promptId, waiter);
  }
  return waiter;
}

function isRef(value: unknown): value is FileRef {
  return typeof value === 'object' && value !== null && typeof (value as FileRef).filename === 'string';
}

// One socket for every job; events of instant jobs can arrive before the submit's answer, so a
// job's waiter exists from before its submit (its id is chosen here) and events are kept per id.
const socket = new WebSocket(`${server.replace(/^http/, 'ws')}/ws?clientId=${clientId}`);
socket.on('message', (data, isBinary) => {
  if (isBinary) return; // previews
  const message = JSON.parse(data.toString()) as { type: string; data: { prompt_id?: string; node?: string | null; output?: Record<string, unknown>; exception_message?: string } };
  const promptId = message.data?.prompt_id;
  if (!promptId) return;
  const waiter = waiterFor(promptId);
  if (message.type === 'executed' && message.data.output) {
    for (const value of Object.values(message.data.output)) if (Array.isArray(value)) waiter.outputs.push(...value.filter(isRef));
  } else if (message.type === 'execution_success') waiter.finish();
  else if (message.type === 'execution_error') waiter.finish(new Error(`job ${promptId} failed: ${message.data.exception_message ?? ''}`));
  else if (message.type === 'execution_interrupted') waiter.finish(new Error(`job ${promptId} was interrupted`));
});
await new Promise<void>((resolve, reject) => {
  socket.once('open', () => resolve());
  socket.once('error', reject);
});

async function ok(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${await response.text()}`);
  return response;
}

async function runOne(name: string): Promise<number> {
  const form = new FormData();
  form.append('image', await openAsBlob(join(inDir!, name)), name);
  form.append('type', 'input');
  const uploaded = (await (await ok(await fetch(`${server}/api/upload/image`, { method: 'POST', body: form }), `upload ${name}`)).json()) as { name: string; subfolder: string };
  const prompt = structuredClone(workflow);
  prompt[bindNode]!.inputs[bindInput] = uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
  const promptId = randomUUID();
  const waiter = waiterFor(promptId);
  await ok(await fetch(`${server}/api/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt, client_id: clientId, prompt_id: promptId }) }), `submit ${name}`);
  await waiter.done;
  waiters.delete(promptId);
  const stem = name.slice(0, name.length - extname(name).length);
  for (const output of waiter.outputs) {
    const query = new URLSearchParams({ filename: output.filename, subfolder: output.subfolder, type: output.type });
    const response = await ok(await fetch(`${server}/api/view?${query}`), `download ${output.filename}`);
    await writeFile(join(outDir!, `${stem}-${output.filename}`), Buffer.from(await response.arrayBuffer()));
  }
  return waiter.outputs.length;
}

const names = readdirSync(inDir).filter((n) => /\.(png|jpe?g|webp)$/i.test(n)).sort();
mkdirSync(outDir, { recursive: true });
const started = performance.now();
let next = 0;
let outputs = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < names.length) outputs += await runOne(names[next++]!);
  }),
);
const seconds = (performance.now() - started) / 1000;
socket.close();
process.stdout.write(`${JSON.stringify({ jobs: names.length, outputs, seconds })}\n`);

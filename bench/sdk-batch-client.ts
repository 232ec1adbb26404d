// A batch client on the community SDK `@saintno/comfyui-sdk` (ComfyApi), the yardstick issue 25
// names for `watch --once`: no Flowdeck code, the SDK's own calls as its README shows them. For
// every image in a folder, CONCURRENCY at a time: upload it (uploadImage), queue the workflow with
// the image bound to NODE.INPUT (queuePrompt), wait for the job's end through the SDK's socket
// (its `executed` and `execution_success` events), download its outputs (getImage) into the output
// folder. The same requests as bench/batch-client.ts, plus the SDK's own start (a ping, system
// stats, its extension probes). Prints {jobs, outputs, seconds}.
//   node sdk-batch-client.mjs SERVER_URL IN_DIR OUT_DIR WORKFLOW.json NODE.INPUT [CONCURRENCY] [durable]
// `durable` adds the bookkeeping Flowdeck does for each image, done as plainly as Node allows, as a
// floor under Flowdeck's CPU: a sha256 of the input, a journal line before the submit and after
// the job (appended, not fsynced, like SQLite's WAL at synchronous=NORMAL), and each output written
// twice (the output folder and a library folder) plus a JSON sidecar, each file fsynced and renamed
// into place, and each folder fsynced.
// (watch-vs-batch bundles it with esbuild and runs it with plain node, as the CLI is run.)
//
// Not CallWrapper: it asks for the job's history after every job (and the queue on each status
// event when the job's first event came before the queue's answer, as it does with instant
// jobs), so it makes more requests than the batch it stands beside.
import { createHash } from 'node:crypto';
import { mkdirSync, openAsBlob, readFileSync } from 'node:fs';
import { appendFile, open, readFile, rename, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { ComfyApi } from '@saintno/comfyui-sdk';
import { JobEndBook, runFolder, type ServerMessage } from './support/batch-jobs';

const [server, inDir, outDir, workflowPath, bind, concurrencyText, mode] = process.argv.slice(2);
if (!server || !inDir || !outDir || !workflowPath || !bind) {
  console.error('usage: sdk-batch-client SERVER_URL IN_DIR OUT_DIR WORKFLOW.json NODE.INPUT [CONCURRENCY]');
  process.exit(2);
}
const [bindNode, bindInput] = bind.split('.') as [string, string];
const workflow = JSON.parse(readFileSync(workflowPath, 'utf8')) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;

const durable = mode === 'durable';
const libraryDir = join(outDir, '.library');
const journal = join(outDir, '.journal.log');
if (durable) mkdirSync(libraryDir, { recursive: true });

/** A file written under a temporary name, fsynced, then renamed into place. */
async function writeDurably(path: string, bytes: Uint8Array | string): Promise<void> {
  const partial = `${path}.part`;
  const handle = await open(partial, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(partial, path);
}

async function syncFolder(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const api = new ComfyApi(server);
const ends = new JobEndBook();
// The server picks each prompt id: an instant job's events can come before queuePrompt's answer,
// so every message is booked by its prompt id as it comes.
api.on('all', (event) => ends.accept(event.detail as ServerMessage));
const connected = new Promise<void>((resolve) => api.on('connected', () => resolve()));
api.init();
await api.waitForReady();
await connected;

async function runOne(name: string): Promise<number> {
  const digest = durable
    ? createHash('sha256')
        .update(await readFile(join(inDir!, name)))
        .digest('hex')
    : '';
  if (durable) await appendFile(journal, `${JSON.stringify({ input: name, digest, phase: 'submitting' })}\n`);
  const uploaded = await api.uploadImage(await openAsBlob(join(inDir!, name)), name, { override: true });
  if (!uploaded) throw new Error(`upload ${name} failed`);
  const prompt = structuredClone(workflow);
  prompt[bindNode]!.inputs[bindInput] = uploaded.info.subfolder ? `${uploaded.info.subfolder}/${uploaded.info.filename}` : uploaded.info.filename;
  const queued = await api.queuePrompt(null, prompt);
  const outputs = await ends.expect(queued.prompt_id)();
  const stem = name.slice(0, name.length - extname(name).length);
  for (const output of outputs) {
    const blob = await api.getImage(output);
    const bytes = Buffer.from(await blob.arrayBuffer());
    const target = join(outDir!, `${stem}-${output.filename}`);
    if (!durable) {
      await writeFile(target, bytes);
      continue;
    }
    await writeDurably(target, bytes);
    await writeDurably(join(libraryDir, `${queued.prompt_id}-${output.filename}`), bytes);
    await writeDurably(`${target}.json`, JSON.stringify({ input: name, digest, prompt_id: queued.prompt_id, output, workflow: prompt }));
  }
  if (durable) {
    await Promise.all([syncFolder(outDir!), syncFolder(libraryDir)]);
    await appendFile(journal, `${JSON.stringify({ input: name, prompt_id: queued.prompt_id, phase: 'done', outputs: outputs.length })}\n`);
  }
  return outputs.length;
}

await runFolder(inDir, outDir, Number(concurrencyText ?? 8), runOne);
api.destroy();

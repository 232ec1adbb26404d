// A batch client on the community SDK `@saintno/comfyui-sdk` (ComfyApi), the yardstick issue 25
// names for `watch --once`: no Flowdeck code, the SDK's own calls as its README shows them. For
// every image in a folder, CONCURRENCY at a time: upload it (uploadImage), queue the workflow with
// the image bound to NODE.INPUT (queuePrompt), wait for the job's end through the SDK's socket
// (its `executed` and `execution_success` events), download its outputs (getImage) into the output
// folder. The same requests as bench/batch-client.ts, plus the SDK's own start (a ping, system
// stats, its extension probes). Prints {jobs, outputs, seconds}.
//   node sdk-batch-client.mjs SERVER_URL IN_DIR OUT_DIR WORKFLOW.json NODE.INPUT [CONCURRENCY]
// (watch-vs-batch bundles it with esbuild and runs it with plain node, as the CLI is run.)
//
// Not CallWrapper: it asks for the job's history after every job (and the queue on each status
// event when the job's first event came before the queue's answer, as it does with instant
// jobs), so it makes more requests than the batch it stands beside.
import { openAsBlob, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { ComfyApi } from '@saintno/comfyui-sdk';
import { JobEndBook, runFolder, type ServerMessage } from './support/batch-jobs';

const [server, inDir, outDir, workflowPath, bind, concurrencyText] = process.argv.slice(2);
if (!server || !inDir || !outDir || !workflowPath || !bind) {
  console.error('usage: sdk-batch-client SERVER_URL IN_DIR OUT_DIR WORKFLOW.json NODE.INPUT [CONCURRENCY]');
  process.exit(2);
}
const [bindNode, bindInput] = bind.split('.') as [string, string];
const workflow = JSON.parse(readFileSync(workflowPath, 'utf8')) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;

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
  const uploaded = await api.uploadImage(await openAsBlob(join(inDir!, name)), name, { override: true });
  if (!uploaded) throw new Error(`upload ${name} failed`);
  const prompt = structuredClone(workflow);
  prompt[bindNode]!.inputs[bindInput] = uploaded.info.subfolder ? `${uploaded.info.subfolder}/${uploaded.info.filename}` : uploaded.info.filename;
  const queued = await api.queuePrompt(null, prompt);
  const outputs = await ends.expect(queued.prompt_id)();
  const stem = name.slice(0, name.length - extname(name).length);
  for (const output of outputs) {
    const blob = await api.getImage(output);
    await writeFile(join(outDir!, `${stem}-${output.filename}`), Buffer.from(await blob.arrayBuffer()));
  }
  return outputs.length;
}

await runFolder(inDir, outDir, Number(concurrencyText ?? 8), runOne);
api.destroy();

// A plain batch client, the yardstick of bench/watch-vs-batch.ts: no Flowdeck code, only fetch and
// ws, as someone would write one against a local server. For every image in a folder, CONCURRENCY
// at a time: upload it, submit the workflow with the image bound to NODE.INPUT, follow the job on
// one WebSocket, download its outputs into the output folder. Prints {jobs, outputs, seconds}.
//   node batch-client.mjs SERVER_URL IN_DIR OUT_DIR WORKFLOW.json NODE.INPUT [CONCURRENCY]
// (watch-vs-batch bundles it with esbuild and runs it with plain node, as the CLI is run.)
import { randomUUID } from 'node:crypto';
import { openAsBlob, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { JobEnds, runFolder } from './support/batch-jobs';

const [server, inDir, outDir, workflowPath, bind, concurrencyText] = process.argv.slice(2);
if (!server || !inDir || !outDir || !workflowPath || !bind) {
  console.error('usage: batch-client SERVER_URL IN_DIR OUT_DIR WORKFLOW.json NODE.INPUT [CONCURRENCY]');
  process.exit(2);
}
const [bindNode, bindInput] = bind.split('.') as [string, string];
const workflow = JSON.parse(readFileSync(workflowPath, 'utf8')) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
const clientId = randomUUID();
const ends = await JobEnds.open(server, clientId);

async function ok(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${await response.text()}`);
  return response;
}

async function runOne(name: string): Promise<number> {
  const form = new FormData();
  form.append('image', await openAsBlob(join(inDir!, name)), name);
  form.append('type', 'input');
  const uploaded = (await (await ok(await fetch(`${server}/api/upload/image`, { method: 'POST', body: form }), `upload ${name}`)).json()) as {
    name: string;
    subfolder: string;
  };
  const prompt = structuredClone(workflow);
  prompt[bindNode]!.inputs[bindInput] = uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
  const promptId = randomUUID();
  const ended = ends.expect(promptId);
  await ok(
    await fetch(`${server}/api/prompt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, client_id: clientId, prompt_id: promptId }),
    }),
    `submit ${name}`,
  );
  const outputs = await ended();
  const stem = name.slice(0, name.length - extname(name).length);
  for (const output of outputs) {
    const query = new URLSearchParams({ filename: output.filename, subfolder: output.subfolder, type: output.type });
    const response = await ok(await fetch(`${server}/api/view?${query}`), `download ${output.filename}`);
    await writeFile(join(outDir!, `${stem}-${output.filename}`), Buffer.from(await response.arrayBuffer()));
  }
  return outputs.length;
}

await runFolder(inDir, outDir, Number(concurrencyText ?? 8), runOne);
ends.close();

// The vendor's v2 SDK (`@comfyorg/sdk`) running a workflow N times, one job after another, as its
// README shows: a lazy asset from the input file (hashed, found by hash or uploaded), run (submit,
// then poll to a terminal state), every output streamed to a file. The yardstick of
// bench/v2-vs-sdk.ts; no Flowdeck code. Prints {jobs, outputs, seconds}.
//   COMFY_BASE_URL=URL node sdk-v2-client.mjs WORKFLOW.json NODE.INPUT IMAGE OUT_DIR [JOBS]
// (v2-vs-sdk bundles it with esbuild and runs it with plain node, as the CLI is run.)
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Comfy } from '@comfyorg/sdk';

const [workflowPath, bind, image, outDir, jobsText] = process.argv.slice(2);
if (!workflowPath || !bind || !image || !outDir) {
  console.error('usage: COMFY_BASE_URL=URL sdk-v2-client WORKFLOW.json NODE.INPUT IMAGE OUT_DIR [JOBS]');
  process.exit(2);
}
const [bindNode, bindInput] = bind.split('.') as [string, string];
const graph = JSON.parse(readFileSync(workflowPath, 'utf8')) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
const jobs = Math.max(1, Number(jobsText ?? 1));
mkdirSync(outDir, { recursive: true });

const client = new Comfy();
const started = performance.now();
let outputs = 0;
for (let n = 0; n < jobs; n += 1) {
  const workflow = client.workflows.fromJson(structuredClone(graph));
  workflow.setInput(bindNode, bindInput, client.assets.fromFile(image));
  const job = await client.run(workflow);
  for (const [i, output] of job.outputs.entries()) {
    await output.toFile(join(outDir, `${n}-${i}-${output.name}`));
    outputs += 1;
  }
}
process.stdout.write(`${JSON.stringify({ jobs, outputs, seconds: (performance.now() - started) / 1000 })}\n`);

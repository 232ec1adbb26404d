// The vendor's v2 SDK (`@comfyorg/sdk`) running a workflow N times, one job after another, as its
// README shows: a lazy asset from the input file (hashed, found by hash or uploaded), run (submit,
// then poll to a terminal state), every output streamed to a file. The yardstick of
// bench/v2-vs-sdk.ts; no Flowdeck code. Prints {jobs, outputs, seconds}.
//   COMFY_BASE_URL=URL node sdk-v2-client.mjs WORKFLOW.json NODE.INPUT IMAGE OUT_DIR [JOBS] [bookkeeping]
// `bookkeeping`: the same client doing plainly what Flowdeck guarantees per job, to measure the
// floor under Flowdeck's overhead: a journal line (the intent and its key) appended and fsynced
// before the send and a second one after the job; each output written into a library folder
// under a temporary name, fsynced and renamed, with a JSON sidecar written the same way and the
// folder fsynced, then copied into OUT_DIR (fsynced, renamed; the folder fsynced).
// (v2-vs-sdk bundles it with esbuild and runs it with plain node, as the CLI is run.)
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { copyFile, open, rename, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Comfy } from '@comfyorg/sdk';

const [workflowPath, bind, image, outDir, jobsText, mode] = process.argv.slice(2);
if (!workflowPath || !bind || !image || !outDir) {
  console.error('usage: COMFY_BASE_URL=URL sdk-v2-client WORKFLOW.json NODE.INPUT IMAGE OUT_DIR [JOBS] [bookkeeping]');
  process.exit(2);
}
const [bindNode, bindInput] = bind.split('.') as [string, string];
const graph = JSON.parse(readFileSync(workflowPath, 'utf8')) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
const jobs = Math.max(1, Number(jobsText ?? 1));
const bookkeeping = mode === 'bookkeeping';
mkdirSync(outDir, { recursive: true });
const libraryDir = join(outDir, '..', `library-${randomUUID()}`);
if (bookkeeping) mkdirSync(libraryDir, { recursive: true });

async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** `write` fills a temporary name, which is fsynced and renamed to `path`. */
async function durably(path: string, write: (temporary: string) => Promise<void>): Promise<void> {
  const temporary = `${path}.partial`;
  await write(temporary);
  await syncPath(temporary);
  await rename(temporary, path);
}

const journal: { handle: FileHandle | null } = { handle: null };
async function journalLine(entry: Record<string, unknown>, fsync: boolean): Promise<void> {
  journal.handle ??= await open(join(libraryDir, 'journal.jsonl'), 'a');
  await journal.handle.write(`${JSON.stringify(entry)}\n`);
  if (fsync) await journal.handle.datasync();
}

const client = new Comfy();
const started = performance.now();
let outputs = 0;
for (let n = 0; n < jobs; n += 1) {
  const workflow = client.workflows.fromJson(structuredClone(graph));
  workflow.setInput(bindNode, bindInput, client.assets.fromFile(image));
  const key = randomUUID();
  if (bookkeeping) await journalLine({ key, phase: 'submitting', workflow: graph }, true);
  const job = await client.run(workflow);
  for (const [i, output] of job.outputs.entries()) {
    const name = `${n}-${i}-${output.name}`;
    if (bookkeeping) {
      const inLibrary = join(libraryDir, name);
      await durably(inLibrary, async (temporary) => void (await output.toFile(temporary)));
      const sidecar = { job: job.id, key, node: output.nodeId, name: output.name, workflow: graph, createdAt: Date.now() };
      await durably(`${inLibrary}.json`, (temporary) => writeFile(temporary, JSON.stringify(sidecar)));
      await syncPath(libraryDir);
      await durably(join(outDir, name), (temporary) => copyFile(inLibrary, temporary));
      await syncPath(outDir);
    } else {
      await output.toFile(join(outDir, name));
    }
    outputs += 1;
  }
  if (bookkeeping) await journalLine({ key, phase: 'succeeded', job: job.id }, false);
}
await journal.handle?.close();
process.stdout.write(`${JSON.stringify({ jobs, outputs, seconds: (performance.now() - started) / 1000 })}\n`);

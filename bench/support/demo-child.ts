// A demo service in its own process, so a benchmark's client and server do not share an event
// loop. Prints one JSON line {url, apiKey, ref} and runs until SIGTERM.
// With a big file (argv[3]), the file is also an output (`ref`), and the node library gains
// BenchBigOutput: a node whose every run outputs that file at once (hard-linked under a new name),
// so a benchmark of a whole job measures the client's work, not the demo's generating 1 GiB.
import { DemoService } from '../../src/main/demo';
import { DataDirs } from '../../src/main/demo/files';
import type { DemoNode } from '../../src/main/demo/node-api';
import { createNodeLibrary } from '../../src/main/demo/nodes';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const flavour = process.argv[2] === 'local' ? 'local' : 'cloud';
const bigFile = process.argv[3];
let demo: DemoService;
let nodes: Map<string, DemoNode> | undefined;
let dataDir: string | undefined;
if (bigFile) {
  dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-bench-demo-'));
  const files = new DataDirs(dataDir, flavour);
  nodes = createNodeLibrary({ listInputFiles: () => files.listInputFiles() });
  let runs = 0;
  nodes.set('BenchBigOutput', {
    definition: {
      input: { required: {} },
      input_order: { required: [] },
      output: [],
      output_is_list: [],
      output_name: [],
      name: 'BenchBigOutput',
      display_name: 'Bench Big Output',
      description: 'Outputs a prepared big file at once (benchmarks only).',
      python_module: 'custom_nodes.flowdeck_bench',
      category: 'Flowdeck demo/testing',
      output_node: true,
    },
    async run() {
      runs += 1;
      const ref = await demo.addOutputFile(bigFile, `bench-big-${runs}.bin`);
      return { outputs: [], ui: { files: [{ filename: ref.filename, subfolder: ref.subfolder, type: 'output' }] } };
    },
  });
}
demo = new DemoService({ flavour, timeScale: 0, maxUploadBytes: 8 * 1024 ** 3, ...(nodes ? { nodes, dataDir } : {}) });
await demo.start();
const ref = bigFile ? await demo.addOutputFile(bigFile, 'big-output.bin') : null;
process.stdout.write(`${JSON.stringify({ url: demo.url, apiKey: demo.apiKey, ref })}\n`);
process.on('SIGTERM', () => {
  void demo.stop().then(() => {
    // A data folder given to the service is not removed by it.
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});

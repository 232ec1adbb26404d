// A demo service whose node library gains BigOutput: a node whose every run outputs a prepared
// file at once (linked under a new name), so a test or benchmark of a whole job with a large output
// measures the client, not the demo generating the bytes. Used by tests/cli/cli-killed-tee.test.ts
// and bench/support/demo-child.ts.
import { DemoService, type DemoFlavour, type DemoServiceOptions } from '../../src/main/demo';
import { DataDirs } from '@main/demo/files';
import { createNodeLibrary } from '@main/demo/nodes';

export const BIG_OUTPUT_CLASS = 'BigOutput';

/** The service, not started; `dataDir` must exist and is left for the caller to remove. */
export function bigOutputDemo(flavour: DemoFlavour, file: string, dataDir: string, options: Partial<DemoServiceOptions> = {}): DemoService {
  const files = new DataDirs(dataDir, flavour);
  const nodes = createNodeLibrary({ listInputFiles: () => files.listInputFiles() });
  let runs = 0;
  nodes.set(BIG_OUTPUT_CLASS, {
    definition: {
      input: { required: {} },
      input_order: { required: [] },
      output: [],
      output_is_list: [],
      output_name: [],
      name: BIG_OUTPUT_CLASS,
      display_name: 'Big Output',
      description: 'Outputs a prepared big file at once (tests and benchmarks only).',
      python_module: 'custom_nodes.flowdeck_tests',
      category: 'Flowdeck demo/testing',
      output_node: true,
    },
    async run() {
      runs += 1;
      const ref = await demo.addOutputFile(file, `big-${runs}.bin`);
      return { outputs: [], ui: { files: [{ filename: ref.filename, subfolder: ref.subfolder, type: 'output' }] } };
    },
  });
  const demo = new DemoService({ ...options, flavour, nodes, dataDir });
  return demo;
}

// A demo service for tests and benchmarks of a pool of servers: jobs that take a fixed time, and a
// ledger file that says which prompts the service accepted, started and finished, written
// synchronously line by line so it stays true even when the service is killed with SIGKILL.
//   FixedDelay  an IMAGE passed through after `ms` of real time (the service's timeScale does not
//               apply: the point is a known job duration, so that a pool's speed-up can be measured)
//   ledger      "received ID" when a submit is accepted (before its answer is sent), "started ID"
//               when FixedDelay begins, "done ID" when SaveImage has saved the output (before the
//               executor sends `executed`/`execution_success`, so a finish a client could have seen
//               is always in the ledger; a "done" whose events were lost in the kill is possible).
// Used by bench/support/demo-child.ts (bench/pool.ts) and, through it, tests/pool.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { DemoService, type DemoFlavour, type DemoServiceOptions } from '../../src/main/demo';
import type { DemoNode } from '@main/demo/node-api';
import { DataDirs } from '@main/demo/files';
import { createNodeLibrary } from '@main/demo/nodes';
import { buildDefinition, readNodeInputs } from '@main/demo/nodes/define';
import { imageInput, intInput } from '@main/demo/nodes/input-specs';

export const FIXED_DELAY_CLASS = 'FixedDelay';

const fixedDelayShape = {
  name: FIXED_DELAY_CLASS,
  displayName: 'Fixed Delay',
  description: 'Passes the image through after a fixed time (tests and benchmarks only).',
  category: 'Flowdeck demo/testing',
  pythonModule: 'custom_nodes.flowdeck_tests',
  required: { image: imageInput(), ms: intInput({ default: 100, min: 0, max: 60_000, tooltip: 'Milliseconds of real time.' }) },
  optional: {},
  outputs: [{ type: 'IMAGE' }],
  outputNode: false,
};

type LedgerEvent = 'received' | 'started' | 'done';

/** Appends one line at once (appendFileSync: on disk before the next thing the service does). */
function ledgerWriter(path: string | null): (event: LedgerEvent, promptId: string) => void {
  return path === null ? () => undefined : (event, promptId) => appendFileSync(path, `${event} ${promptId}\n`);
}

/** A Map that notes every accepted submit: the service counts them in stats.submissions. */
class ReceivedLedger extends Map<string, number> {
  constructor(private readonly note: (promptId: string) => void) {
    super();
  }
  override set(promptId: string, count: number): this {
    this.note(promptId);
    return super.set(promptId, count);
  }
}

/**
 * The service, not started; with `ledgerPath`, every accepted, started and finished prompt is noted
 * there. `dataDir` must exist and is left for the caller to remove (a killed service cannot).
 */
export function ledgerDemo(flavour: DemoFlavour, ledgerPath: string | null, dataDir: string, options: Partial<DemoServiceOptions> = {}): DemoService {
  const note = ledgerWriter(ledgerPath);
  const files = new DataDirs(dataDir, flavour);
  const nodes = createNodeLibrary({ listInputFiles: () => files.listInputFiles() });
  nodes.set(FIXED_DELAY_CLASS, {
    definition: buildDefinition(fixedDelayShape),
    async run(context, inputs) {
      const { image, ms } = readNodeInputs(fixedDelayShape, inputs);
      note('started', context.promptId);
      await new Promise((resolve) => setTimeout(resolve, ms));
      // An interrupt meanwhile ends the job once the time is up (InterruptedError), as a node that
      // checks between steps would.
      context.checkInterrupted();
      return { outputs: [image] };
    },
  });
  const save = nodes.get('SaveImage')!;
  const noted: DemoNode = {
    ...save,
    async run(context, inputs) {
      const result = await save.run(context, inputs);
      note('done', context.promptId);
      return result;
    },
  };
  nodes.set('SaveImage', noted);
  const demo = new DemoService({ ...options, flavour, nodes, dataDir });
  demo.stats.submissions = new ReceivedLedger((promptId) => note('received', promptId));
  return demo;
}

/** LoadImage (the input a hot folder binds: `1.image`) -> FixedDelay `ms` -> ImageInvert -> SaveImage. */
export function fixedDelayWorkflow(prefix: string, ms: number): object {
  return {
    '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } },
    '2': { class_type: FIXED_DELAY_CLASS, inputs: { image: ['1', 0], ms } },
    '3': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } },
    '4': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: prefix } },
  };
}

export interface Ledger {
  received: string[];
  started: string[];
  done: string[];
}

/** The ledger's prompt ids by event, in order (a missing file: nothing yet). */
export function readLedger(path: string): Ledger {
  const ledger: Ledger = { received: [], started: [], done: [] };
  if (!existsSync(path)) return ledger;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const [event, id] = line.split(' ');
    // A line cut short by a kill has no id; it is not counted.
    if (id && (event === 'received' || event === 'started' || event === 'done')) ledger[event].push(id);
  }
  return ledger;
}

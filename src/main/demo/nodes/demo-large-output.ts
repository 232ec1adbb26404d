// DemoLargeOutput: writes an output file of N megabytes (MiB) of deterministic, incompressible bytes,
// for testing downloads of large files. The bytes are produced chunk by chunk. The node contract's
// saveFile() takes a whole buffer, so:
//   - when the context also offers saveFileStream() (see StreamingSaveContext), chunks are streamed
//     and nothing large is held in memory, up to the full 4096 MiB;
//   - otherwise sizes up to IN_MEMORY_LIMIT_MB are assembled in one buffer and saved, and larger
//     requests fail with a message that says why.
import type { DemoNode, DemoNodeContext, SavedFile } from '../node-api';
import { NodeExecutionError } from '../node-api';
import { DEMO_MODULE, buildDefinition, readNodeInputs } from './define';
import { intInput } from './input-specs';
import { fillXorshift } from './random';

export const CHUNK_BYTES = 1024 * 1024;
export const IN_MEMORY_LIMIT_MB = 256;

/** What an executor may add to the context so large outputs are streamed to disk. */
export interface StreamingSaveContext {
  saveFileStream(prefix: string, extension: string, chunks: AsyncIterable<Uint8Array>, type: 'output' | 'temp'): Promise<SavedFile>;
}

function canStream(context: DemoNodeContext): context is DemoNodeContext & StreamingSaveContext {
  return typeof (context as Partial<StreamingSaveContext>).saveFileStream === 'function';
}

/** Chunk `index` (1 MiB) of every large output: anyone can recompute it to verify a download. */
export function largeOutputChunk(index: number): Uint8Array {
  const chunk = new Uint8Array(CHUNK_BYTES);
  fillXorshift(chunk, (Math.imul(index + 1, 0x9e3779b1) ^ 0x5eed1a6e) >>> 0);
  return chunk;
}

const shape = {
  name: 'DemoLargeOutput',
  displayName: 'Demo Large Output',
  description: 'Writes a binary output file of the given size (MiB) of deterministic bytes, to exercise large downloads.',
  category: 'Flowdeck demo/testing',
  pythonModule: DEMO_MODULE,
  required: {
    megabytes: intInput({ default: 8, min: 1, max: 4096, tooltip: 'Size of the file in MiB.' }),
  },
  optional: {},
  outputs: [],
  outputNode: true,
};

export function createDemoLargeOutputNode(): DemoNode {
  return {
    definition: buildDefinition(shape),
    async run(context, inputs) {
      const { megabytes } = readNodeInputs(shape, inputs);
      async function* chunks(): AsyncGenerator<Uint8Array> {
        for (let i = 0; i < megabytes; i++) {
          context.checkInterrupted();
          yield largeOutputChunk(i);
          context.progress(i + 1, megabytes);
        }
      }
      let saved: SavedFile;
      if (canStream(context)) {
        saved = await context.saveFileStream('Flowdeck_large', 'bin', chunks(), 'output');
      } else {
        if (megabytes > IN_MEMORY_LIMIT_MB) {
          throw new NodeExecutionError(
            'MemoryError',
            `DemoLargeOutput: this demo service cannot stream outputs, so files are limited to ${IN_MEMORY_LIMIT_MB} MiB (asked for ${megabytes} MiB).`,
          );
        }
        const all = new Uint8Array(megabytes * CHUNK_BYTES);
        let at = 0;
        for await (const chunk of chunks()) {
          all.set(chunk, at);
          at += chunk.length;
        }
        saved = await context.saveFile('Flowdeck_large', 'bin', all, 'output');
      }
      // `files`, not `images`: it is not an image. Clients collect every array of file references.
      return { outputs: [], ui: { files: [saved] } };
    },
  };
}

// DemoVideo: returns a small real video a browser can play. No JavaScript video encoder is
// available, so the node stores a pre-encoded VP8 WebM clip shipped in resources/demo/ (how it
// was made: resources/demo/README.md); the input image is checked but not encoded into the clip.
import { readFile } from 'node:fs/promises';
import type { DemoNode } from '../node-api';
import { NodeExecutionError } from '../node-api';
import { DEMO_MODULE, buildDefinition, readNodeInputs } from './define';
import { imageInput, intInput } from './input-specs';
import { demoResourcePath } from './resources';

export const DEMO_CLIP = 'demo-clip.webm';
const WEBM_MAGIC = [0x1a, 0x45, 0xdf, 0xa3]; // EBML header

const shape = {
  name: 'DemoVideo',
  displayName: 'Demo Video',
  description: 'Saves a short demo video (a bundled 64x64 VP8 WebM clip; the input image is not encoded into it).',
  category: 'Flowdeck demo/video',
  pythonModule: DEMO_MODULE,
  required: {
    image: imageInput(),
    frames: intInput({ default: 24, min: 2, max: 120 }),
    fps: intInput({ default: 12, min: 1, max: 60 }),
  },
  optional: {},
  outputs: [],
  outputNode: true,
};

export async function readDemoClip(): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(demoResourcePath(DEMO_CLIP));
  } catch (error) {
    throw new NodeExecutionError('FileNotFoundError', `DemoVideo: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!WEBM_MAGIC.every((b, i) => bytes[i] === b)) throw new NodeExecutionError('RuntimeError', `DemoVideo: the bundled ${DEMO_CLIP} is not a WebM file.`);
  return bytes;
}

export function createDemoVideoNode(): DemoNode {
  return {
    definition: buildDefinition(shape),
    async run(context, inputs) {
      const { frames } = readNodeInputs(shape, inputs);
      const bytes = await readDemoClip();
      // "Encoding" progress per frame, so clients see a video node progress like any other.
      for (let frame = 1; frame <= frames; frame++) {
        context.checkInterrupted();
        context.progress(frame, frames);
      }
      const saved = await context.saveFile('video/Flowdeck', 'webm', bytes, 'output');
      // `animated` is not a file list: clients must skip it (PROTOCOL.md "Output keys").
      return { outputs: [], ui: { video: [saved], animated: true } };
    },
  };
}

// ImageInvert: 255 - value on each colour channel (as the real node's 1.0 - x).
import type { DemoNode } from '../node-api';
import { buildDefinition, readNodeInputs } from './define';
import { invertImage } from './image-ops';
import { imageInput } from './input-specs';

const shape = {
  name: 'ImageInvert',
  displayName: 'Invert Image',
  description: 'Inverts the colours of an image.',
  category: 'image',
  pythonModule: 'nodes',
  required: { image: imageInput() },
  optional: {},
  outputs: [{ type: 'IMAGE' }],
  outputNode: false,
};

export function createImageInvertNode(): DemoNode {
  return {
    definition: buildDefinition(shape),
    async run(_context, inputs) {
      const { image } = readNodeInputs(shape, inputs);
      return { outputs: [invertImage(image)] };
    },
  };
}

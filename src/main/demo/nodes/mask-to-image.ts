// MaskToImage: shows a mask as a picture (white = masked), the quickest check of a painted mask.
import type { DemoNode } from '../node-api';
import { buildDefinition, readNodeInputs } from './define';
import { maskToImage } from './image-ops';
import { maskInput } from './input-specs';

const shape = {
  name: 'MaskToImage',
  displayName: 'Convert Mask to Image',
  description: 'White where the mask is 1 (masked), black where it is 0.',
  category: 'mask',
  pythonModule: 'comfy_extras.nodes_mask',
  required: { mask: maskInput() },
  optional: {},
  outputs: [{ type: 'IMAGE' }],
  outputNode: false,
};

export function createMaskToImageNode(): DemoNode {
  return {
    definition: buildDefinition(shape),
    async run(_context, inputs) {
      const { mask } = readNodeInputs(shape, inputs);
      return { outputs: [maskToImage(mask)] };
    },
  };
}

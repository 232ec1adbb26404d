// ImageBlur: a separable Gaussian blur with the real node's inputs (blur_radius 1..31, sigma 0.1..10).
import type { DemoNode } from '../node-api';
import { buildDefinition, readNodeInputs } from './define';
import { gaussianBlur } from './image-ops';
import { floatInput, imageInput, intInput } from './input-specs';

const shape = {
  name: 'ImageBlur',
  displayName: 'Image Blur',
  description: 'Gaussian blur with a kernel of 2 * blur_radius + 1 pixels.',
  category: 'image/postprocessing',
  pythonModule: 'comfy_extras.nodes_post_processing',
  required: {
    image: imageInput(),
    blur_radius: intInput({ default: 1, min: 1, max: 31, step: 1 }),
    sigma: floatInput({ default: 1, min: 0.1, max: 10, step: 0.1 }),
  },
  optional: {},
  outputs: [{ type: 'IMAGE' }],
  outputNode: false,
};

export function createImageBlurNode(): DemoNode {
  return {
    definition: buildDefinition(shape),
    async run(context, inputs) {
      const { image, blur_radius, sigma } = readNodeInputs(shape, inputs);
      context.checkInterrupted();
      return { outputs: [gaussianBlur(image, blur_radius, sigma)] };
    },
  };
}

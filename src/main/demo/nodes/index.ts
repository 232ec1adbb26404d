// The demo service's node library: class name -> node (definition + run). The server publishes the
// definitions on /object_info, validates workflows against them and runs the nodes.
import type { DemoNode } from '../node-api';
import { createDemoAudioNode } from './demo-audio';
import { createDemoInpaintNode } from './demo-inpaint';
import { createDemoLargeOutputNode } from './demo-large-output';
import { createDemoPartnerNode } from './demo-partner';
import { createDemoSamplerNode } from './demo-sampler';
import { createDemoVideoNode } from './demo-video';
import { createImageBlurNode } from './image-blur';
import { createImageInvertNode } from './image-invert';
import { createLoadImageNode } from './load-image';
import { createMaskToImageNode } from './mask-to-image';
import { createPreviewImageNode, createSaveImageNode } from './save-image';

export interface NodeLibraryOptions {
  /** Input file names for LoadImage's combo list in its definition (the server may also fill it itself). */
  listInputFiles?: () => string[];
}

export function createNodeLibrary(options: NodeLibraryOptions = {}): Map<string, DemoNode> {
  const nodes: [string, DemoNode][] = [
    ['LoadImage', createLoadImageNode(options.listInputFiles)],
    ['ImageInvert', createImageInvertNode()],
    ['ImageBlur', createImageBlurNode()],
    ['MaskToImage', createMaskToImageNode()],
    ['DemoInpaint', createDemoInpaintNode()],
    ['DemoSampler', createDemoSamplerNode()],
    ['SaveImage', createSaveImageNode()],
    ['PreviewImage', createPreviewImageNode()],
    ['DemoVideo', createDemoVideoNode()],
    ['DemoAudio', createDemoAudioNode()],
    ['DemoPartnerNode', createDemoPartnerNode()],
    ['DemoLargeOutput', createDemoLargeOutputNode()],
  ];
  return new Map(nodes);
}

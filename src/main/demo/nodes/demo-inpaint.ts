// DemoInpaint: replaces the masked region with a fill and blends by the mask value, so a soft
// mask edge gives a soft transition and pixels whose mask is 0 come out exactly unchanged.
//   noise: seeded colour noise; solid: the mean colour of the unmasked pixels;
//   blur:  the surrounding colours spread into the hole (normalised convolution: a wide blur of
//          the unmasked pixels divided by a blur of their weights, so masked colours never leak in).
import type { DemoNode, Mask, RgbaImage } from '../node-api';
import { DEMO_MODULE, buildDefinition, readNodeInputs } from './define';
import { boxBlurPlane, clampByte, cloneImage, resizeMask } from './image-ops';
import { imageInput, legacyComboInput, maskInput, seedInput } from './input-specs';
import { deriveSeed32, hashUnit } from './random';

const FILLS = ['noise', 'solid', 'blur'];

const shape = {
  name: 'DemoInpaint',
  displayName: 'Demo Inpaint',
  description: 'Fills the masked region (mask 1 = replaced, soft values blend) with noise, a solid colour, or the surrounding colours.',
  category: 'Flowdeck demo/inpaint',
  pythonModule: DEMO_MODULE,
  required: {
    image: imageInput(),
    mask: maskInput('1 = replace, 0 = keep; a mask of another size is resampled to the image.'),
    seed: seedInput(),
    fill: legacyComboInput({ options: () => FILLS, default: 'noise' }),
  },
  optional: {},
  outputs: [{ type: 'IMAGE' }],
  outputNode: false,
};

function noiseFill(image: RgbaImage, seed: bigint): Float32Array {
  const seed32 = deriveSeed32(seed, 'inpaint-noise');
  const out = new Float32Array(image.width * image.height * 3);
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const i = (y * image.width + x) * 3;
      for (let c = 0; c < 3; c++) out[i + c] = hashUnit(x, y, c, seed32) * 255;
    }
  }
  return out;
}

function solidFill(image: RgbaImage, mask: Mask): Float32Array {
  const sum = [0, 0, 0];
  let weight = 0;
  for (let i = 0; i < mask.data.length; i++) {
    const w = 1 - mask.data[i]!;
    for (let c = 0; c < 3; c++) sum[c]! += w * image.data[i * 4 + c]!;
    weight += w;
  }
  const mean = weight > 0 ? sum.map((s) => s / weight) : [128, 128, 128];
  const out = new Float32Array(mask.data.length * 3);
  for (let i = 0; i < mask.data.length; i++) for (let c = 0; c < 3; c++) out[i * 3 + c] = mean[c]!;
  return out;
}

function blurFill(image: RgbaImage, mask: Mask): Float32Array {
  const { width: w, height: h } = image;
  const n = w * h;
  const radius = Math.max(2, Math.round(Math.min(w, h) / 12));
  const weight = new Float32Array(n);
  const planes = [new Float32Array(n), new Float32Array(n), new Float32Array(n)];
  for (let i = 0; i < n; i++) {
    const keep = 1 - mask.data[i]!;
    weight[i] = keep;
    for (let c = 0; c < 3; c++) planes[c]![i] = keep * image.data[i * 4 + c]!;
  }
  // Three box passes approximate a Gaussian of that width at O(1) per pixel.
  for (let pass = 0; pass < 3; pass++) {
    boxBlurPlane(weight, w, h, radius);
    for (const plane of planes) boxBlurPlane(plane, w, h, radius);
  }
  const fallback = solidFill(image, mask);
  const out = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    const wt = weight[i]!;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = wt > 1e-4 ? planes[c]![i]! / wt : fallback[i * 3 + c]!;
  }
  return out;
}

export function inpaint(image: RgbaImage, maskIn: Mask, fill: string, seed: bigint): RgbaImage {
  const mask = resizeMask(maskIn, image.width, image.height);
  const colours = fill === 'solid' ? solidFill(image, mask) : fill === 'blur' ? blurFill(image, mask) : noiseFill(image, seed);
  const out = cloneImage(image);
  for (let i = 0; i < mask.data.length; i++) {
    const m = Math.min(1, Math.max(0, mask.data[i]!));
    if (m === 0) continue; // unmasked pixels are copied bit for bit
    for (let c = 0; c < 3; c++) {
      const p = i * 4 + c;
      out.data[p] = clampByte(image.data[p]! * (1 - m) + colours[i * 3 + c]! * m);
    }
  }
  return out;
}

export function createDemoInpaintNode(): DemoNode {
  return {
    definition: buildDefinition(shape),
    async run(context, inputs) {
      const { image, mask, seed, fill } = readNodeInputs(shape, inputs);
      context.checkInterrupted();
      return { outputs: [inpaint(image, mask, fill, seed)] };
    },
  };
}

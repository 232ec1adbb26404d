// DemoSampler: a procedural stand-in for a diffusion sampler. Each step sleeps (the work), reports
// progress, and sends a preview that moves from noise towards the final picture; step 1 also sends
// a progress text, as the real server's sampler loop does (traces/previews.json). The output is a
// deterministic function of prompt, seed, size, steps, cfg and sampler_name.
import type { DemoNode, RgbaImage } from '../node-api';
import { NodeExecutionError } from '../node-api';
import { DEMO_MODULE, buildDefinition, readNodeInputs } from './define';
import { fitWithin } from './image-ops';
import { comboInput, floatInput, intInput, seedInput, stringInput } from './input-specs';
import { blendImages, buildScene, renderNoise, renderScene } from './procedural';
import { deriveSeed32 } from './random';

const SAMPLERS = ['euler', 'dpmpp_2m', 'ddim'] as const;
type SamplerName = (typeof SAMPLERS)[number];

/** Previews are sent at most this size on the longer edge (the real server's preview size is 512). */
export const PREVIEW_MAX = 512;

const shape = {
  name: 'DemoSampler',
  displayName: 'Demo Sampler',
  description: 'Paints a procedural landscape from the prompt and seed, step by step from noise, with live previews.',
  category: 'sampling',
  pythonModule: DEMO_MODULE,
  required: {
    prompt: stringInput({
      default: 'a lighthouse at dusk, oil painting',
      multiline: true,
      tooltip: 'Words such as dusk, night, snow, desert, forest, sea steer the picture.',
    }),
    seed: seedInput(),
    steps: intInput({ default: 8, min: 1, max: 200, tooltip: 'Number of refinement steps; each sends progress and a preview.' }),
    width: intInput({ default: 256, min: 16, max: 2048, step: 8 }),
    height: intInput({ default: 256, min: 16, max: 2048, step: 8 }),
    cfg: floatInput({
      default: 7,
      min: 0,
      max: 30,
      step: 0.5,
      round: 0.01,
      tooltip: 'Colour intensity (high values over-saturate, like a high guidance scale).',
    }),
    sampler_name: comboInput({ options: SAMPLERS, default: 'euler' }),
  },
  optional: {
    delay_ms: intInput({ default: 120, min: 0, max: 10000, tooltip: 'Time each step takes (scaled by the demo service time scale).' }),
    fail_at_step: intInput({ default: 0, min: 0, max: 1000, tooltip: 'Raise an error at this step (0 = never).' }),
  },
  outputs: [{ type: 'IMAGE' }],
  outputNode: false,
};

/** How far from noise towards the picture the preview is after `step` of `steps` (1 at the end). */
export function denoisedFraction(sampler: SamplerName, step: number, steps: number): number {
  const t = step / steps;
  if (sampler === 'dpmpp_2m') return 1 - (1 - t) * (1 - t);
  if (sampler === 'ddim') return t * t * (3 - 2 * t);
  return t;
}

/** Grain left in the output: a one-step result is visibly rough, many steps are clean. */
function residualGrain(steps: number): number {
  return 24 / steps;
}

export function createDemoSamplerNode(): DemoNode {
  return {
    definition: buildDefinition(shape),
    async run(context, inputs) {
      const v = readNodeInputs(shape, inputs);
      const scene = buildScene(v.prompt, v.seed, v.cfg);
      const small = fitWithin(v.width, v.height, PREVIEW_MAX);
      // Rendered once at preview size; each step only blends (cheap even at 200 steps).
      let picture: RgbaImage | null = null;
      let noise: RgbaImage | null = null;
      for (let step = 1; step <= v.steps; step++) {
        context.checkInterrupted();
        if (v.delay_ms > 0) await context.sleep(v.delay_ms);
        if (step === v.fail_at_step) throw new NodeExecutionError('RuntimeError', `DemoSampler: deliberate failure at step ${step}`);
        context.progress(step, v.steps);
        picture ??= renderScene(scene, small.width, small.height);
        noise ??= renderNoise(deriveSeed32(v.seed, 'sampler-noise', v.sampler_name, v.prompt), small.width, small.height);
        context.preview(blendImages(noise, picture, denoisedFraction(v.sampler_name, step, v.steps)));
        if (step === 1) context.text(`step 1 of ${v.steps}`);
      }
      context.checkInterrupted();
      return { outputs: [renderScene(scene, v.width, v.height, residualGrain(v.steps))] };
    },
  };
}

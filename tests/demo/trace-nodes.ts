// A node library shaped exactly like the nodes of the recorded traces (traces/object_info.json):
// LoadImage, ImageInvert, SaveImage, PreviewImage and the PreviewLoop test node. With it the demo
// server's answers can be compared with the real server's recordings, independently of the app's
// own demo node library.
import { PNG } from 'pngjs';
import type { JsonObject } from '@shared/json';
import { NodeExecutionError, type DemoNode, type RgbaImage } from '@main/demo/node-api';

function def(name: string, input: JsonObject, order: JsonObject, output: string[], outputNode: boolean, extra: JsonObject = {}): JsonObject {
  return {
    input,
    input_order: order,
    output,
    output_is_list: output.map(() => false),
    output_name: output,
    name,
    display_name: name,
    description: '',
    python_module: 'nodes',
    category: 'image',
    output_node: outputNode,
    ...extra,
  };
}

export function decodePngImage(bytes: Uint8Array): RgbaImage {
  const png = PNG.sync.read(Buffer.from(bytes));
  return { width: png.width, height: png.height, data: new Uint8Array(png.data) };
}

export function encodePngImage(image: RgbaImage): Uint8Array {
  const png = new PNG({ width: image.width, height: image.height });
  Buffer.from(image.data).copy(png.data);
  return new Uint8Array(PNG.sync.write(png, { colorType: 6 }));
}

export function solidImage(width: number, height: number, rgba: [number, number, number, number]): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width, height, data };
}

function asImage(value: unknown): RgbaImage {
  if (typeof value === 'object' && value !== null && 'data' in value && (value as RgbaImage).data instanceof Uint8Array) return value as RgbaImage;
  throw new NodeExecutionError('TypeError', 'expected an IMAGE');
}

const loadImage: DemoNode = {
  definition: def('LoadImage', { required: { image: [[], { image_upload: true }] } }, { required: ['image'] }, ['IMAGE', 'MASK'], false),
  validate(inputs, files) {
    const name = inputs.image;
    return typeof name === 'string' && files.inputExists(name) ? null : `Invalid image file: ${String(name)}`;
  },
  async run(ctx, inputs) {
    const image = decodePngImage(await ctx.readFile(String(inputs.image), '', 'input'));
    const mask = { width: image.width, height: image.height, data: new Float32Array(image.width * image.height) };
    return { outputs: [image, mask] };
  },
};

const imageInvert: DemoNode = {
  definition: def('ImageInvert', { required: { image: ['IMAGE'] } }, { required: ['image'] }, ['IMAGE'], false),
  async run(_ctx, inputs) {
    const src = asImage(inputs.image);
    const data = new Uint8Array(src.data);
    for (let i = 0; i < data.length; i += 4) {
      data[i] = 255 - data[i]!;
      data[i + 1] = 255 - data[i + 1]!;
      data[i + 2] = 255 - data[i + 2]!;
    }
    return { outputs: [{ width: src.width, height: src.height, data }] };
  },
};

const hidden = { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' };

const saveImage: DemoNode = {
  definition: def(
    'SaveImage',
    {
      required: {
        images: ['IMAGE', { tooltip: 'The images to save.' }],
        filename_prefix: ['STRING', { default: 'ComfyUI', tooltip: 'The prefix for the file to save.' }],
      },
      hidden,
    },
    { required: ['images', 'filename_prefix'], hidden: ['prompt', 'extra_pnginfo'] },
    [],
    true,
  ),
  async run(ctx, inputs) {
    const saved = await ctx.saveFile(String(inputs.filename_prefix), 'png', encodePngImage(asImage(inputs.images)), 'output');
    return { outputs: [], ui: { images: [saved] } };
  },
};

const previewImage: DemoNode = {
  definition: def('PreviewImage', { required: { images: ['IMAGE'] }, hidden }, { required: ['images'], hidden: ['prompt', 'extra_pnginfo'] }, [], true),
  async run(ctx, inputs) {
    const saved = await ctx.saveFile('ComfyUI_temp_sbfsg', 'png', encodePngImage(asImage(inputs.images)), 'temp');
    return { outputs: [], ui: { images: [saved] } };
  },
};

const previewLoop: DemoNode = {
  definition: def(
    'PreviewLoop',
    {
      required: {
        steps: ['INT', { default: 4, min: 1, max: 1000 }],
        delay: ['FLOAT', { default: 0.2, min: 0.0, max: 10.0, step: 0.05 }],
        seed: ['INT', { default: 0, min: 0, max: 18446744073709551615n }],
        width: ['INT', { default: 64, min: 8, max: 4096 }],
        height: ['INT', { default: 64, min: 8, max: 4096 }],
      },
      optional: { fail_at_step: ['INT', { default: 0, min: 0, max: 1000, tooltip: 'raise an exception at this step (0 = never)' }] },
      hidden: { unique_id: 'UNIQUE_ID' },
    },
    { required: ['steps', 'delay', 'seed', 'width', 'height'], optional: ['fail_at_step'], hidden: ['unique_id'] },
    ['IMAGE'],
    false,
    { category: 'testing/previews', python_module: 'custom_nodes.sample_preview_loop' },
  ),
  async run(ctx, inputs) {
    const steps = Number(inputs.steps);
    const failAt = Number(inputs.fail_at_step ?? 0);
    const image = solidImage(Number(inputs.width), Number(inputs.height), [200, 30, 30, 255]);
    for (let step = 1; step <= steps; step++) {
      await ctx.sleep(Number(inputs.delay) * 1000);
      if (step === failAt) throw new NodeExecutionError('RuntimeError', `PreviewLoop: deliberate failure at step ${step}`);
      ctx.progress(step, steps);
      ctx.preview(image);
      if (step === 1) ctx.text(`step 1 of ${steps}`);
    }
    return { outputs: [image] };
  },
};

/** A node that fails with a plain Error (not a NodeExecutionError). */
const crashNode: DemoNode = {
  definition: def('CrashNode', { required: {} }, { required: [] }, [], true),
  async run() {
    throw new Error('something broke');
  },
};

export function traceNodes(): Map<string, DemoNode> {
  return new Map([
    ['LoadImage', loadImage],
    ['ImageInvert', imageInvert],
    ['SaveImage', saveImage],
    ['PreviewImage', previewImage],
    ['PreviewLoop', previewLoop],
    ['CrashNode', crashNode],
  ]);
}

export const SIMPLE_WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'sample.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'samples/inverted' } },
};

export function loopWorkflow(steps: number, delay: number, extra: Record<string, unknown> = {}, seed = 1): Record<string, unknown> {
  return {
    '5': { class_type: 'PreviewLoop', inputs: { steps, delay, seed, width: 8, height: 8, ...extra } },
    '6': { class_type: 'PreviewImage', inputs: { images: ['5', 0] } },
  };
}

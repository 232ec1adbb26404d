// The demo service's template gallery, made from its own nodes so that every template runs on it:
// the core gallery (categories of UI-format workflows with thumbnails, as the templates package
// serves them at /templates/) and one custom node pack's example workflows (as the local server
// lists them at /api/workflow_templates). Thumbnails are drawn on first request with the same
// procedural painter the Demo Sampler uses, encoded as JPEG, and kept for the service's life.
import type { JsonObject, JsonValue } from '@shared/json';
import type { Mask, RgbaImage } from './node-api';
import { inpaint } from './nodes/demo-inpaint';
import { encodeJpeg } from './nodes/image-codec';
import { gaussianBlur, invertImage, maskToImage } from './nodes/image-ops';
import { buildScene, renderScene } from './nodes/procedural';

const THUMB_WIDTH = 320;
const THUMB_HEIGHT = 240;

/** One node of a UI graph: its widget values in definition order, its input and output sockets. */
interface NodeSpec {
  id: number;
  type: string;
  title: string;
  pos: [number, number];
  widgets: JsonValue[];
  inputs?: [name: string, type: string][];
  outputs?: [name: string, type: string][];
}

/** A link: [id, from node, from slot, to node, to slot, type], as the editor saves it. */
type LinkSpec = [number, number, number, number, number, string];

/** An editor graph (UI format, schema 0.4) from nodes and links, sockets wired as the links say. */
function uiGraph(nodes: NodeSpec[], links: LinkSpec[]): JsonObject {
  return {
    last_node_id: Math.max(...nodes.map((n) => n.id)),
    last_link_id: links.length === 0 ? 0 : Math.max(...links.map((l) => l[0])),
    nodes: nodes.map((n, order) => ({
      id: n.id,
      type: n.type,
      pos: n.pos,
      size: [320, 260],
      flags: {},
      order,
      mode: 0,
      inputs: (n.inputs ?? []).map(([name, type], slot) => ({
        name,
        type,
        link: links.find((l) => l[3] === n.id && l[4] === slot)?.[0] ?? null,
      })),
      outputs: (n.outputs ?? []).map(([name, type], slot) => ({
        name,
        type,
        links: links.filter((l) => l[1] === n.id && l[2] === slot).map((l) => l[0]),
        slot_index: slot,
      })),
      title: n.title,
      properties: { 'Node name for S&R': n.type },
      widgets_values: n.widgets,
    })),
    links,
    groups: [],
    config: {},
    extra: { ds: { scale: 1, offset: [0, 0] } },
    version: 0.4,
  };
}

const loadImage = (id: number, x: number): NodeSpec => ({
  id,
  type: 'LoadImage',
  title: 'Load Image',
  pos: [x, 80],
  widgets: ['example.png', 'image'],
  outputs: [
    ['IMAGE', 'IMAGE'],
    ['MASK', 'MASK'],
  ],
});

const saveImage = (id: number, x: number, prefix: string): NodeSpec => ({
  id,
  type: 'SaveImage',
  title: 'Save Image',
  pos: [x, 80],
  widgets: [prefix],
  inputs: [['images', 'IMAGE']],
});

const sampler = (id: number, prompt: string, seed: number): NodeSpec => ({
  id,
  type: 'DemoSampler',
  title: 'Demo Sampler',
  pos: [40, 80],
  // prompt, seed, control_after_generate, steps, width, height, cfg, sampler_name, delay_ms, fail_at_step
  widgets: [prompt, seed, 'randomize', 8, 512, 384, 7, 'euler', 120, 0],
  outputs: [['IMAGE', 'IMAGE']],
});

/** One template: where it is listed, its workflow, and how its thumbnail is drawn. */
export interface DemoTemplate {
  name: string;
  title: string;
  description: string;
  tags: string[];
  workflow: JsonObject;
  thumbnail: () => RgbaImage;
}

export interface DemoTemplateCategory {
  title: string;
  type: 'image' | 'video' | 'audio';
  templates: DemoTemplate[];
}

function scene(prompt: string, seed: bigint): RgbaImage {
  return renderScene(buildScene(prompt, seed, 7), THUMB_WIDTH, THUMB_HEIGHT);
}

/** The left half as drawn, the right half as `after` made it: a before/after thumbnail. */
function split(before: RgbaImage, after: RgbaImage): RgbaImage {
  const out = { width: before.width, height: before.height, data: new Uint8Array(before.data) };
  const half = Math.floor(before.width / 2);
  for (let y = 0; y < before.height; y++) {
    const row = y * before.width * 4;
    out.data.set(after.data.subarray(row + half * 4, row + before.width * 4), row + half * 4);
    // A thin light seam between the halves.
    for (let c = 0; c < 3; c++) out.data[row + half * 4 + c] = 235;
  }
  return out;
}

/** A disc in the middle, masked (1), as the example mask paints it. */
function centreDisc(width: number, height: number): Mask {
  const data = new Float32Array(width * height);
  const r = Math.min(width, height) * 0.28;
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (Math.hypot(x - width / 2, y - height / 2) <= r) data[y * width + x] = 1;
  return { width, height, data };
}

/** Dark bands with sprocket holes at the top and bottom: a film frame. */
function filmFrame(image: RgbaImage): RgbaImage {
  const out = { width: image.width, height: image.height, data: new Uint8Array(image.data) };
  const band = 22;
  for (let y = 0; y < image.height; y++) {
    const inBand = y < band || y >= image.height - band;
    if (!inBand) continue;
    const bandY = y < band ? y : y - (image.height - band);
    for (let x = 0; x < image.width; x++) {
      const hole = bandY >= 6 && bandY < band - 6 && x % 28 >= 8 && x % 28 < 20;
      const i = (y * image.width + x) * 4;
      const v = hole ? 225 : 18;
      out.data[i] = v;
      out.data[i + 1] = v;
      out.data[i + 2] = v;
    }
  }
  return out;
}

/** The core gallery, category by category (the order of /templates/index.json). */
function demoTemplateCategories(): DemoTemplateCategory[] {
  return [
    {
      title: 'Basics',
      type: 'image',
      templates: [
        {
          name: 'text_to_image',
          title: 'Text to image',
          description: 'Paint a landscape from a prompt and a seed, with a live preview at every step.',
          tags: ['Text to Image', 'Image'],
          workflow: uiGraph([sampler(3, 'a lighthouse at dusk, oil painting', 42), saveImage(9, 420, 'Flowdeck_template')], [[1, 3, 0, 9, 0, 'IMAGE']]),
          thumbnail: () => scene('a lighthouse at dusk, oil painting', 42n),
        },
        {
          name: 'video_and_audio',
          title: 'Video and audio',
          description: 'Make a short video clip and a tone from one picture: see how video and audio outputs play.',
          tags: ['Video', 'Audio'],
          workflow: uiGraph(
            [
              sampler(1, 'a desert at night, stars', 7),
              { id: 2, type: 'DemoVideo', title: 'Demo Video', pos: [420, 40], widgets: [24, 12], inputs: [['image', 'IMAGE']] },
              { id: 3, type: 'DemoAudio', title: 'Demo Audio', pos: [420, 320], widgets: [1.5, 440] },
            ],
            [[1, 1, 0, 2, 0, 'IMAGE']],
          ),
          thumbnail: () => filmFrame(scene('a desert at night, stars', 7n)),
        },
      ],
    },
    {
      title: 'Image editing',
      type: 'image',
      templates: [
        {
          name: 'image_to_image',
          title: 'Image to image',
          description: 'Start from a picture of yours and soften it with a Gaussian blur of the radius you choose.',
          tags: ['Image to Image', 'Image'],
          workflow: uiGraph(
            [
              loadImage(1, 40),
              { id: 2, type: 'ImageBlur', title: 'Image Blur', pos: [400, 80], widgets: [6, 3], inputs: [['image', 'IMAGE']], outputs: [['IMAGE', 'IMAGE']] },
              saveImage(3, 760, 'Flowdeck_blur'),
            ],
            [
              [1, 1, 0, 2, 0, 'IMAGE'],
              [2, 2, 0, 3, 0, 'IMAGE'],
            ],
          ),
          thumbnail: () => {
            const before = scene('a green forest valley in spring', 11n);
            return split(before, gaussianBlur(before, 6, 3));
          },
        },
        {
          name: 'inpaint_masked_area',
          title: 'Inpaint a masked area',
          description: 'Paint a mask over a picture and fill only the masked pixels with noise, a solid colour or a blur.',
          tags: ['Inpaint', 'Image'],
          workflow: uiGraph(
            [
              loadImage(1, 40),
              {
                id: 2,
                type: 'DemoInpaint',
                title: 'Demo Inpaint',
                pos: [400, 80],
                widgets: [7, 'fixed', 'noise'],
                inputs: [
                  ['image', 'IMAGE'],
                  ['mask', 'MASK'],
                ],
                outputs: [['IMAGE', 'IMAGE']],
              },
              saveImage(3, 760, 'Flowdeck_inpaint'),
            ],
            [
              [1, 1, 0, 2, 0, 'IMAGE'],
              [2, 1, 1, 2, 1, 'MASK'],
              [3, 2, 0, 3, 0, 'IMAGE'],
            ],
          ),
          thumbnail: () => inpaint(scene('snow on a frozen lake, winter', 5n), centreDisc(THUMB_WIDTH, THUMB_HEIGHT), 'noise', 7n),
        },
        {
          name: 'invert_colours',
          title: 'Invert colours',
          description: 'Turn a picture into its negative: every colour inverted.',
          tags: ['Image'],
          workflow: uiGraph(
            [
              loadImage(1, 40),
              { id: 2, type: 'ImageInvert', title: 'Invert Image', pos: [400, 80], widgets: [], inputs: [['image', 'IMAGE']], outputs: [['IMAGE', 'IMAGE']] },
              saveImage(3, 760, 'Flowdeck_invert'),
            ],
            [
              [1, 1, 0, 2, 0, 'IMAGE'],
              [2, 2, 0, 3, 0, 'IMAGE'],
            ],
          ),
          thumbnail: () => {
            const before = scene('a harbour by the sea at sunset', 3n);
            return split(before, invertImage(before));
          },
        },
      ],
    },
  ];
}

/** The custom node pack whose `example_workflows` the local flavour lists (its folder name, as the server reports it). */
export const DEMO_NODE_PACK = 'flowdeck-demo-nodes';

/** The pack's example workflows: name -> template (a thumbnail beside each, NAME.jpg). */
function demoPackExamples(): DemoTemplate[] {
  return [
    {
      name: 'mask_to_image',
      title: 'mask_to_image',
      description: '',
      tags: [],
      workflow: uiGraph(
        [
          loadImage(1, 40),
          {
            id: 2,
            type: 'MaskToImage',
            title: 'Convert Mask to Image',
            pos: [400, 80],
            widgets: [],
            inputs: [['mask', 'MASK']],
            outputs: [['IMAGE', 'IMAGE']],
          },
          saveImage(3, 760, 'Flowdeck_mask'),
        ],
        [
          [1, 1, 1, 2, 0, 'MASK'],
          [2, 2, 0, 3, 0, 'IMAGE'],
        ],
      ),
      thumbnail: () => maskToImage(centreDisc(THUMB_WIDTH, THUMB_HEIGHT)),
    },
  ];
}

/**
 * One service's gallery: the core categories, the pack's examples, and their thumbnails, drawn once
 * each on first request (drawing all at start would slow the start of every test's service).
 */
export class DemoGallery {
  readonly categories = demoTemplateCategories();
  readonly examples = demoPackExamples();
  readonly #drawn = new Map<string, Uint8Array>();

  /** A template of the core gallery by name. */
  core(name: string): DemoTemplate | undefined {
    return this.categories.flatMap((c) => c.templates).find((t) => t.name === name);
  }

  example(name: string): DemoTemplate | undefined {
    return this.examples.find((t) => t.name === name);
  }

  /** The template's thumbnail as JPEG; `key` tells the core gallery's from the pack's. */
  thumbnailJpeg(key: string, template: DemoTemplate): Uint8Array {
    let bytes = this.#drawn.get(key);
    if (!bytes) {
      bytes = encodeJpeg(template.thumbnail(), 82);
      this.#drawn.set(key, bytes);
    }
    return bytes;
  }
}

// Small hand-written UI graphs and node definitions for the converter's unit tests, written from
// the file formats (schema 0.4 link arrays, schema 1 link objects, subgraph definitions, legacy
// group nodes), not copied from any corpus.
import { parseNodeDefinitions, type NodeDefinitions } from '@main/service/object-info';
import type { JsonObject, JsonValue } from '@shared/json';

const SEED_MAX = 18446744073709551615n;

/** object_info in the server's shape, for the classes the tests use. */
export const OBJECT_INFO = {
  Loader: {
    input: { required: { ckpt_name: [['a.safetensors', 'b.safetensors'], {}] } },
    output: ['MODEL', 'CLIP', 'VAE'],
    output_name: ['MODEL', 'CLIP', 'VAE'],
    name: 'Loader',
    display_name: 'Load Checkpoint',
  },
  Encode: {
    input: { required: { text: ['STRING', { multiline: true }], clip: ['CLIP', {}] } },
    output: ['CONDITIONING'],
    name: 'Encode',
    display_name: 'Text Encode',
  },
  Sampler: {
    input: {
      required: {
        model: ['MODEL', {}],
        seed: ['INT', { default: 0, min: 0, max: '__SEED_MAX__', control_after_generate: true }],
        steps: ['INT', { default: 20, min: 1, max: 100 }],
        sampler_name: [['euler', 'heun'], {}],
        positive: ['CONDITIONING', {}],
      },
      optional: { denoise: ['FLOAT', { default: 1, min: 0, max: 1 }] },
    },
    input_order: { required: ['model', 'seed', 'steps', 'sampler_name', 'positive'], optional: ['denoise'] },
    output: ['LATENT'],
    name: 'Sampler',
    display_name: 'Sampler',
  },
  // Object order differs from input_order: input_order wins.
  Ordered: {
    input: { required: { b: ['INT', { default: 2 }], a: ['STRING', {}] } },
    input_order: { required: ['a', 'b'] },
    output: ['STRING'],
    name: 'Ordered',
  },
  // No input_order: required, then optional, in object order.
  Unordered: {
    input: { optional: { z: ['FLOAT', { default: 0.5 }] }, required: { y: ['BOOLEAN', { default: true }], x: ['INT', {}] } },
    output: [],
    name: 'Unordered',
  },
  RandomNoise: { input: { required: { noise_seed: ['INT', { default: 0, min: 0, max: 100 }] } }, output: ['NOISE'], name: 'RandomNoise' },
  Picker: {
    input: { required: { choice: [['red', 'green', 'blue'], { control_after_generate: true }], size: ['INT', { default: 1 }] } },
    output: ['STRING'],
    name: 'Picker',
  },
  Forced: { input: { required: { value: ['STRING', { forceInput: true }], scale: ['FLOAT', { default: 1 }] } }, output: ['STRING'], name: 'Forced' },
  Decode: { input: { required: { samples: ['LATENT', {}], vae: ['VAE', {}] } }, output: ['IMAGE'], name: 'Decode', display_name: 'VAE Decode' },
  Blur: { input: { required: { image: ['IMAGE', {}], radius: ['INT', { default: 3 }] }, optional: { mask: ['MASK', {}] } }, output: ['IMAGE'], name: 'Blur' },
  Mix: { input: { required: { mask: ['MASK', {}], image: ['IMAGE', {}] } }, output: ['IMAGE'], name: 'Mix' },
  LoadImage: {
    input: { required: { image: [['in.png'], { image_upload: true }], channel: [['alpha', 'red'], {}] } },
    output: ['IMAGE', 'MASK'],
    name: 'LoadImage',
  },
  Save: {
    input: { required: { images: ['IMAGE', {}], filename_prefix: ['STRING', { default: 'out' }] } },
    output: [],
    output_node: true,
    name: 'Save',
    display_name: 'Save Image',
  },
};

export function definitions(extra: Record<string, unknown> = {}): NodeDefinitions {
  const text = JSON.stringify({ ...OBJECT_INFO, ...extra }).replace('"__SEED_MAX__"', SEED_MAX.toString());
  return parseNodeDefinitions(text);
}

/** [name, type, link id or null, widget name] */
export type InputRow = [string, string, (number | null)?, string?];

export interface NodeOptions {
  inputs?: InputRow[];
  outputs?: string[];
  values?: JsonValue[] | JsonObject;
  mode?: number;
  title?: string;
}

export function node(id: number | string, type: string, options: NodeOptions = {}): JsonObject {
  const out: JsonObject = { id, type, pos: [0, 0], size: [200, 100], flags: {}, order: 0, mode: options.mode ?? 0, properties: {} };
  if (options.inputs) {
    out.inputs = options.inputs.map(([name, t, link, widget]) => {
      const input: JsonObject = { name, type: t, link: link ?? null };
      if (widget) input.widget = { name: widget };
      return input;
    });
  }
  if (options.outputs) out.outputs = options.outputs.map((t) => ({ name: t, type: t, links: [] }));
  if (options.values !== undefined) out.widgets_values = options.values;
  if (options.title !== undefined) out.title = options.title;
  return out;
}

/** [id, origin node, origin slot, target node, target slot, type] */
export type LinkRow = [number, number | string, number, number | string, number, string];

/** Schema 0.4: links as arrays. */
export function graph(nodes: JsonObject[], links: LinkRow[], rest: JsonObject = {}): JsonObject {
  return { last_node_id: nodes.length, last_link_id: links.length, nodes, links, groups: [], config: {}, extra: {}, version: 0.4, ...rest };
}

/** Schema 1: links as objects. */
export function linkObjects(links: LinkRow[]): JsonObject[] {
  return links.map(([id, origin_id, origin_slot, target_id, target_slot, type]) => ({ id, origin_id, origin_slot, target_id, target_slot, type }));
}

export function graphV1(nodes: JsonObject[], links: LinkRow[], rest: JsonObject = {}): JsonObject {
  return {
    version: 1,
    state: { lastNodeId: nodes.length, lastLinkId: links.length, lastGroupId: 0, lastRerouteId: 0 },
    nodes,
    links: linkObjects(links),
    groups: [],
    config: {},
    extra: {},
    ...rest,
  };
}

/** The usual text-to-image chain: Loader 1 -> Encode 2 -> Sampler 3 -> Decode 4 -> Save 5. */
export function basicGraph(): JsonObject {
  return graph(
    [
      node(1, 'Loader', { outputs: ['MODEL', 'CLIP', 'VAE'], values: ['b.safetensors'] }),
      node(2, 'Encode', { inputs: [['clip', 'CLIP', 2]], outputs: ['CONDITIONING'], values: ['a red fox'], title: 'Positive' }),
      node(3, 'Sampler', {
        inputs: [
          ['model', 'MODEL', 1],
          ['positive', 'CONDITIONING', 3],
        ],
        outputs: ['LATENT'],
        values: [42, 'randomize', 30, 'heun', 0.75],
      }),
      node(4, 'Decode', {
        inputs: [
          ['samples', 'LATENT', 4],
          ['vae', 'VAE', 5],
        ],
        outputs: ['IMAGE'],
      }),
      node(5, 'Save', { inputs: [['images', 'IMAGE', 6]], values: ['fox'] }),
    ],
    [
      [1, 1, 0, 3, 0, 'MODEL'],
      [2, 1, 1, 2, 0, 'CLIP'],
      [3, 2, 0, 3, 1, 'CONDITIONING'],
      [4, 3, 0, 4, 0, 'LATENT'],
      [5, 1, 2, 4, 1, 'VAE'],
      [6, 4, 0, 5, 0, 'IMAGE'],
    ],
  );
}

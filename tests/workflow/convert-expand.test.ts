// Subgraphs (nested, promoted widgets) and legacy group nodes expand into inner nodes with
// `PARENT:INNER` ids.
import { describe, expect, it } from 'vitest';
import { convertUiWorkflow, UiConversionError } from '@main/workflow/convert-ui';
import type { JsonObject, JsonValue } from '@shared/json';
import { definitions, graph, graphV1, linkObjects, node } from './ui-fixtures';

const defs = definitions();

function inputsOf(prompt: JsonObject, id: string): JsonObject {
  return (prompt[id] as JsonObject).inputs as JsonObject;
}

/** Subgraph "Encode": -10 (clip, text) -> Encode 5 -> -20 (CONDITIONING). */
const encodeSubgraph: JsonObject = {
  id: '0d4c6f3e-1111-4a4a-9c9c-000000000001',
  version: 1,
  name: 'Encode',
  inputNode: { id: -10, bounding: [0, 0, 100, 100] },
  outputNode: { id: -20, bounding: [400, 0, 100, 100] },
  inputs: [
    { id: 'in-clip', name: 'clip', type: 'CLIP', linkIds: [1] },
    { id: 'in-text', name: 'text', type: 'STRING', linkIds: [2] },
  ],
  outputs: [{ id: 'out-cond', name: 'CONDITIONING', type: 'CONDITIONING', linkIds: [3] }],
  widgets: [],
  nodes: [
    node(5, 'Encode', {
      inputs: [
        ['text', 'STRING', 2, 'text'],
        ['clip', 'CLIP', 1],
      ],
      outputs: ['CONDITIONING'],
      values: ['inner text'],
    }),
  ],
  links: linkObjects([
    [1, -10, 0, 5, 1, 'CLIP'],
    [2, -10, 1, 5, 0, 'STRING'],
    [3, 5, 0, -20, 0, 'CONDITIONING'],
  ]),
};

/** Root: Loader 1 -> instance 12 (of `subgraphId`) -> Sampler 3. */
function withInstance(subgraphId: string, instance: Partial<{ values: string[]; textLink: number | null; mode: number }>, subgraphs: JsonObject[]): JsonObject {
  const nodes = [
    node(1, 'Loader', { outputs: ['MODEL', 'CLIP', 'VAE'], values: ['a.safetensors'] }),
    node(12, subgraphId, {
      inputs: [
        ['clip', 'CLIP', 1],
        ['text', 'STRING', instance.textLink ?? null, 'text'],
      ],
      outputs: ['CONDITIONING'],
      values: instance.values ?? [],
      mode: instance.mode ?? 0,
    }),
    node(3, 'Sampler', {
      inputs: [
        ['model', 'MODEL', 2],
        ['positive', 'CONDITIONING', 3],
      ],
      outputs: ['LATENT'],
      values: [1, 'fixed', 10, 'euler', 1],
    }),
  ];
  return graph(
    nodes,
    [
      [1, 1, 1, 12, 0, 'CLIP'],
      [2, 1, 0, 3, 0, 'MODEL'],
      [3, 12, 0, 3, 1, 'CONDITIONING'],
    ],
    { definitions: { subgraphs } },
  );
}

describe('subgraphs', () => {
  it('expands an instance into PARENT:INNER nodes, links crossing both edges', () => {
    const { prompt } = convertUiWorkflow(withInstance(encodeSubgraph.id as string, {}, [encodeSubgraph]), defs);
    expect(Object.keys(prompt).sort()).toEqual(['1', '12:5', '3']);
    expect(prompt['12:5']).toEqual({ inputs: { text: 'inner text', clip: ['1', 1] }, class_type: 'Encode', _meta: { title: 'Text Encode' } });
    expect(inputsOf(prompt, '3').positive).toEqual(['12:5', 0]);
  });

  it('uses a promoted widget value stored on the instance', () => {
    const { prompt } = convertUiWorkflow(withInstance(encodeSubgraph.id as string, { values: ['promoted text'] }, [encodeSubgraph]), defs);
    expect(inputsOf(prompt, '12:5').text).toBe('promoted text');
  });

  it('uses promoted widget values listed as properties.proxyWidgets', () => {
    const g = withInstance(encodeSubgraph.id as string, { values: ['proxied text'] }, [encodeSubgraph]);
    const instance = (g.nodes as JsonObject[])[1]!;
    instance.properties = { proxyWidgets: [['5', 'text']] };
    instance.inputs = [{ name: 'clip', type: 'CLIP', link: 1 }];
    expect(inputsOf(convertUiWorkflow(g, defs).prompt, '12:5')).toEqual({ text: 'proxied text', clip: ['1', 1] });
  });

  it("wires each of the subgraph's inputs by name when the instance lists its sockets in another order", () => {
    const g = withInstance(encodeSubgraph.id as string, { values: ['promoted text'] }, [encodeSubgraph]);
    const instance = (g.nodes as JsonObject[])[1]!;
    // Saved sockets: text first, then clip (the subgraph declares clip, text).
    instance.inputs = [
      { name: 'text', type: 'STRING', link: null, widget: { name: 'text' } },
      { name: 'clip', type: 'CLIP', link: 1 },
    ];
    (g.links as JsonValue[])[0] = [1, 1, 1, 12, 1, 'CLIP'];
    expect(inputsOf(convertUiWorkflow(g, defs).prompt, '12:5')).toEqual({ text: 'promoted text', clip: ['1', 1] });
  });

  it('gives the subgraph\'s inputs the instance values of a template that saves no sockets, only ["-1", input] proxies', () => {
    const g = withInstance(encodeSubgraph.id as string, { values: ['template text'] }, [encodeSubgraph]);
    const instance = (g.nodes as JsonObject[])[1]!;
    instance.inputs = [];
    instance.properties = { proxyWidgets: [['-1', 'text']] };
    g.links = [
      [2, 1, 0, 3, 0, 'MODEL'],
      [3, 12, 0, 3, 1, 'CONDITIONING'],
    ];
    expect(inputsOf(convertUiWorkflow(g, defs).prompt, '12:5')).toEqual({ text: 'template text' });
  });

  it('reads promoted values without proxies by the subgraph\'s widget inputs, skipping a saved "control after generate"', () => {
    const seeded: JsonObject = {
      ...encodeSubgraph,
      id: 'seeded',
      inputs: [
        { id: 's', name: 'seed', type: 'INT', linkIds: [1] },
        { id: 'm', name: 'model', type: 'MODEL', linkIds: [2] },
        { id: 'n', name: 'steps', type: 'INT', linkIds: [3] },
      ],
      outputs: [],
      nodes: [
        node(5, 'Sampler', {
          inputs: [
            ['model', 'MODEL', 2],
            ['seed', 'INT', 1, 'seed'],
            ['steps', 'INT', 3, 'steps'],
          ],
          outputs: ['LATENT'],
          values: [1, 'fixed', 10, 'euler', 1],
        }),
      ],
      links: linkObjects([
        [1, -10, 0, 5, 1, 'INT'],
        [2, -10, 1, 5, 0, 'MODEL'],
        [3, -10, 2, 5, 2, 'INT'],
      ]),
    };
    const g = graph(
      [node(1, 'Loader', { outputs: ['MODEL', 'CLIP', 'VAE'], values: ['a.safetensors'] }), node(12, 'seeded', { values: [77, 'randomize', 33] })],
      [],
      { definitions: { subgraphs: [seeded] } },
    );
    expect(inputsOf(convertUiWorkflow(g, defs).prompt, '12:5')).toEqual({ seed: 77, steps: 33, sampler_name: 'euler', denoise: 1 });
  });

  it('expands nested subgraphs with ids PARENT:CHILD:INNER', () => {
    const outer: JsonObject = {
      id: '0d4c6f3e-2222-4a4a-9c9c-000000000002',
      name: 'Outer',
      inputNode: { id: -10 },
      outputNode: { id: -20 },
      inputs: [{ id: 'o-clip', name: 'clip', type: 'CLIP', linkIds: [1] }],
      outputs: [{ id: 'o-cond', name: 'CONDITIONING', type: 'CONDITIONING', linkIds: [2] }],
      nodes: [
        node(7, encodeSubgraph.id as string, {
          inputs: [
            ['clip', 'CLIP', 1],
            ['text', 'STRING', null, 'text'],
          ],
          outputs: ['CONDITIONING'],
          values: ['deep text'],
        }),
      ],
      links: linkObjects([
        [1, -10, 0, 7, 0, 'CLIP'],
        [2, 7, 0, -20, 0, 'CONDITIONING'],
      ]),
    };
    const { prompt } = convertUiWorkflow(withInstance(outer.id as string, {}, [outer, encodeSubgraph]), defs);
    expect(Object.keys(prompt).sort()).toEqual(['1', '12:7:5', '3']);
    expect(inputsOf(prompt, '12:7:5')).toEqual({ text: 'deep text', clip: ['1', 1] });
    expect(inputsOf(prompt, '3').positive).toEqual(['12:7:5', 0]);
  });

  it('does not open a muted instance: its nodes are dropped and links to it removed', () => {
    const muted = convertUiWorkflow(withInstance(encodeSubgraph.id as string, { mode: 2 }, [encodeSubgraph]), defs).prompt;
    expect(Object.keys(muted).sort()).toEqual(['1', '3']);
    expect(inputsOf(muted, '3').positive).toBeUndefined();
  });

  it('opens a bypassed instance: its inner nodes run, links through the instance pass it by', () => {
    // Encode2 feeds a CONDITIONING input through the instance: bypassed, the Sampler gets it directly.
    const g = withInstance(encodeSubgraph.id as string, { mode: 4 }, [encodeSubgraph]);
    const nodes = g.nodes as JsonObject[];
    nodes.push(node(9, 'Encode', { inputs: [['clip', 'CLIP', 4]], outputs: ['CONDITIONING'], values: ['outside'] }));
    (nodes[1]!.inputs as JsonObject[]).push({ name: 'cond', type: 'CONDITIONING', link: 5 });
    (g.links as JsonValue[]).push([4, 1, 1, 9, 0, 'CLIP'], [5, 9, 0, 12, 2, 'CONDITIONING']);
    const { prompt } = convertUiWorkflow(g, defs);
    expect(Object.keys(prompt).sort()).toEqual(['1', '12:5', '3', '9']);
    expect(inputsOf(prompt, '12:5')).toEqual({ text: 'inner text', clip: ['1', 1] });
    expect(inputsOf(prompt, '3').positive).toEqual(['9', 0]);
  });

  it('refuses a subgraph that contains itself', () => {
    const loop: JsonObject = { ...encodeSubgraph, id: 'loop', nodes: [node(1, 'loop', {})], links: [] };
    expect(() => convertUiWorkflow(withInstance('loop', {}, [loop]), defs)).toThrow(/subgraph "Encode" contains itself/);
  });

  it('reads schema 1 files with subgraphs the same way', () => {
    const v04 = withInstance(encodeSubgraph.id as string, {}, [encodeSubgraph]);
    const v1 = graphV1(
      v04.nodes as JsonObject[],
      [
        [1, 1, 1, 12, 0, 'CLIP'],
        [2, 1, 0, 3, 0, 'MODEL'],
        [3, 12, 0, 3, 1, 'CONDITIONING'],
      ],
      { definitions: v04.definitions! },
    );
    expect(convertUiWorkflow(v1, defs).prompt).toEqual(convertUiWorkflow(v04, defs).prompt);
  });
});

describe('legacy group nodes', () => {
  const groupNodes: JsonObject = {
    EncodeAndSample: {
      nodes: [
        {
          index: 0,
          type: 'Encode',
          inputs: [{ name: 'clip', type: 'CLIP', link: null }],
          outputs: [{ name: 'CONDITIONING', type: 'CONDITIONING', links: [] }],
          widgets_values: ['stored'],
        },
        {
          index: 1,
          type: 'Sampler',
          inputs: [
            { name: 'model', type: 'MODEL', link: null },
            { name: 'positive', type: 'CONDITIONING', link: null },
          ],
          outputs: [{ name: 'LATENT', type: 'LATENT', links: [] }],
          widgets_values: [0, 'fixed', 1, 'euler', 1],
        },
      ],
      links: [
        [0, 0, 1, 1, 2, 'CONDITIONING'],
        [null, 1, 0, 0, 1, 'CLIP'],
        [null, 0, 1, 0, 1, 'MODEL'],
      ],
      external: [],
      config: {},
    },
  };

  for (const type of ['workflow>EncodeAndSample', 'workflow/EncodeAndSample']) {
    it(`expands ${type} into PARENT:INDEX nodes, values and sockets in inner order`, () => {
      const g = graph(
        [
          node(1, 'Loader', { outputs: ['MODEL', 'CLIP', 'VAE'], values: ['a.safetensors'] }),
          node(30, type, {
            inputs: [
              ['clip', 'CLIP', 1],
              ['model', 'MODEL', 2],
            ],
            outputs: ['LATENT'],
            values: ['group text', 11, 'randomize', 25, 'heun', 0.6],
          }),
          node(4, 'Decode', {
            inputs: [
              ['samples', 'LATENT', 3],
              ['vae', 'VAE', 4],
            ],
            outputs: ['IMAGE'],
          }),
        ],
        [
          [1, 1, 1, 30, 0, 'CLIP'],
          [2, 1, 0, 30, 1, 'MODEL'],
          [3, 30, 0, 4, 0, 'LATENT'],
          [4, 1, 2, 4, 1, 'VAE'],
        ],
        { extra: { groupNodes } },
      );
      const { prompt } = convertUiWorkflow(g, defs);
      expect(Object.keys(prompt).sort()).toEqual(['1', '30:0', '30:1', '4']);
      expect(inputsOf(prompt, '30:0')).toEqual({ text: 'group text', clip: ['1', 1] });
      expect(inputsOf(prompt, '30:1')).toEqual({ seed: 11, steps: 25, sampler_name: 'heun', denoise: 0.6, model: ['1', 0], positive: ['30:0', 0] });
      expect(inputsOf(prompt, '4').samples).toEqual(['30:1', 0]);
    });
  }

  it('numbers inner nodes by index even when an older editor saved every inner id as -1 (two identical inner nodes)', () => {
    const twin = (index: number): JsonObject => ({
      id: -1,
      index,
      type: 'Encode',
      inputs: [{ name: 'clip', type: 'CLIP', link: null }],
      outputs: [{ name: 'CONDITIONING', type: 'CONDITIONING', links: [] }],
      widgets_values: ['stored'],
    });
    const g = graph(
      [
        node(1, 'Loader', { outputs: ['MODEL', 'CLIP', 'VAE'], values: ['a.safetensors'] }),
        node(7, 'workflow>Twins', {
          inputs: [
            ['clip', 'CLIP', 1],
            ['Encode 2 clip', 'CLIP', 2],
          ],
          outputs: ['CONDITIONING', 'CONDITIONING'],
          values: ['first', 'second'],
        }),
      ],
      [
        [1, 1, 1, 7, 0, 'CLIP'],
        [2, 1, 1, 7, 1, 'CLIP'],
      ],
      { extra: { groupNodes: { Twins: { nodes: [twin(0), twin(1)], links: [], external: [] } } } },
    );
    const { prompt } = convertUiWorkflow(g, defs);
    expect(Object.keys(prompt).sort()).toEqual(['1', '7:0', '7:1']);
    expect(inputsOf(prompt, '7:0')).toEqual({ text: 'first', clip: ['1', 1] });
    expect(inputsOf(prompt, '7:1')).toEqual({ text: 'second', clip: ['1', 1] });
  });

  it('treats a group type without a definition as a missing class', () => {
    const g = graph([node(30, 'workflow>Nowhere', { values: [1, 2] })], []);
    expect(() => convertUiWorkflow(g, defs)).toThrow(UiConversionError);
  });
});

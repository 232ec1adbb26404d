// Classes the server lacks, and graphs no server could run: clear errors naming the node.
import { describe, expect, it } from 'vitest';
import { convertUiWorkflow, UiConversionError } from '@main/workflow/convert-ui';
import type { JsonObject } from '@shared/json';
import { definitions, graph, node, type LinkRow } from './ui-fixtures';

const defs = definitions();

function conversionError(g: JsonObject): UiConversionError {
  try {
    convertUiWorkflow(g, defs);
  } catch (error) {
    if (error instanceof UiConversionError) return error;
    throw error;
  }
  throw new Error('expected a UiConversionError');
}

describe('classes the server does not have', () => {
  it('uses the widget names the file records when they account for every value', () => {
    const g = graph(
      [
        node(1, 'CustomThing', {
          inputs: [
            ['strength', 'FLOAT', null, 'strength'],
            ['seed', 'INT', null, 'seed'],
            ['label', 'STRING', null, 'label'],
          ],
          outputs: ['IMAGE'],
          values: [0.5, 8, 'randomize', 'hello'],
        }),
      ],
      [],
    );
    expect(convertUiWorkflow(g, defs).prompt['1']).toEqual({
      inputs: { strength: 0.5, seed: 8, label: 'hello' },
      class_type: 'CustomThing',
      _meta: { title: 'CustomThing' },
    });
  });

  it('converts a missing class with no widgets, or object-valued widgets, without guessing', () => {
    const g = graph([node(1, 'NoWidgets', { outputs: ['IMAGE'] }), node(2, 'Keyed', { values: { mode: 'fast', depth: 2 } })], []);
    const { prompt } = convertUiWorkflow(g, defs);
    expect((prompt['1'] as JsonObject).inputs).toEqual({});
    expect((prompt['2'] as JsonObject).inputs).toEqual({ mode: 'fast', depth: 2 });
  });

  it('fails listing every missing class when the file does not name their widgets', () => {
    const g = graph(
      [
        node(4, 'CustomA', { values: [1, 2] }),
        node(5, 'CustomB', { values: ['x'] }),
        node(6, 'CustomA', { values: [3, 4] }),
        node(7, 'CustomC', { values: [1], mode: 2 }),
      ],
      [],
    );
    const error = conversionError(g);
    expect(error.missingClasses).toEqual(['CustomA', 'CustomB']);
    expect(error.nodeId).toBe('4');
    expect(error.message).toContain('CustomA (nodes 4, 6)');
    expect(error.message).toContain('CustomB (node 5)');
  });
});

describe('graphs no server can run', () => {
  it('names a node on a cycle of real nodes', () => {
    const g = graph(
      [
        node(1, 'Blur', { inputs: [['image', 'IMAGE', 1]], outputs: ['IMAGE'], values: [1] }),
        node(2, 'Blur', { inputs: [['image', 'IMAGE', 2]], outputs: ['IMAGE'], values: [1] }),
        node(3, 'Save', { inputs: [['images', 'IMAGE', 3]], values: ['x'] }),
      ],
      [
        [1, 2, 0, 1, 0, 'IMAGE'],
        [2, 1, 0, 2, 0, 'IMAGE'],
        [3, 2, 0, 3, 0, 'IMAGE'],
      ],
    );
    const error = conversionError(g);
    expect(error.message).toMatch(/cycle: node [12] \(Blur\)/);
    expect(['1', '2']).toContain(error.nodeId);
  });

  it('names the node whose link goes round a cycle of Reroutes', () => {
    const g = graph(
      [
        node(10, 'Reroute', { inputs: [['', '*', 2]], outputs: ['*'] }),
        node(11, 'Reroute', { inputs: [['', '*', 1]], outputs: ['*'] }),
        node(3, 'Save', { inputs: [['images', 'IMAGE', 3]], values: ['x'] }),
      ],
      [
        [1, 10, 0, 11, 0, '*'],
        [2, 11, 0, 10, 0, '*'],
        [3, 11, 0, 3, 0, 'IMAGE'],
      ],
    );
    const error = conversionError(g);
    expect(error.nodeId).toBe('3');
    expect(error.message).toMatch(/Node 3 \(Save\).*cycle/);
  });

  it('names the node linked to an output slot that does not exist', () => {
    const g = graph(
      [
        node(1, 'Loader', { outputs: ['MODEL', 'CLIP', 'VAE'], values: ['a.safetensors'] }),
        node(2, 'Encode', { inputs: [['clip', 'CLIP', 1]], values: ['x'] }),
      ],
      [[1, 1, 7, 2, 0, 'CLIP']],
    );
    const error = conversionError(g);
    expect(error.nodeId).toBe('2');
    expect(error.message).toContain('output 7 of node 1 (Loader), which has only 3 outputs');
  });

  it('names malformed nodes and links', () => {
    expect(conversionError(graph([node(1, 'Save', { values: ['x'] }), 42 as unknown as JsonObject], [])).message).toBe('nodes[1] is not an object.');
    expect(conversionError(graph([{ id: 3 }], [])).message).toBe('node 3 has no type.');
    expect(conversionError(graph([node(3, 'Save', { values: 'x' as unknown as string[] })], [])).message).toContain(
      'node 3 (Save): "widgets_values" is neither',
    );
    expect(conversionError(graph([node(1, 'Save'), node(1, 'Save')], [])).message).toContain('node id 1 is used twice');
    expect(conversionError(graph([node(1, 'Save')], [['x', 1] as unknown as LinkRow])).message).toContain('links[0]');
    expect(conversionError({ nodes: 'no', links: [] }).message).toBe('"nodes" is not a list.');
    expect(conversionError(graph([node(1, 'Save')], [[1, 1, 1e9, 1, 0, 'IMAGE']])).message).toContain('slot numbers (0 to 65535)');
  });

  it('converts a 100,000-node chain without recursion trouble', () => {
    const count = 100_000;
    const nodes: JsonObject[] = [node(0, 'LoadImage', { outputs: ['IMAGE', 'MASK'], values: ['in.png', 'alpha'] })];
    const links: LinkRow[] = [];
    for (let i = 1; i < count; i += 1) {
      // Every third node a Reroute, so the resolver walks long pass-through stretches too.
      nodes.push(
        i % 3 === 0
          ? node(i, 'Reroute', { inputs: [['', '*', i]], outputs: ['*'] })
          : node(i, 'Blur', { inputs: [['image', 'IMAGE', i]], outputs: ['IMAGE'], values: [i % 7] }),
      );
      links.push([i, i - 1, 0, i, 0, 'IMAGE']);
    }
    const { prompt } = convertUiWorkflow(graph(nodes, links), defs);
    const ids = Object.keys(prompt);
    expect(ids.length).toBe(1 + Math.floor(((count - 1) * 2) / 3) + ((count - 1) % 3 === 2 ? 1 : 0));
    expect(((prompt['4'] as JsonObject).inputs as JsonObject).image).toEqual(['2', 0]);
  });

  it('walks a long Reroute chain once however many inputs it feeds (50,000 Reroutes, 50,000 consumers)', () => {
    const half = 50_000;
    const nodes: JsonObject[] = [node(0, 'LoadImage', { outputs: ['IMAGE', 'MASK'], values: ['in.png', 'alpha'] })];
    const links: LinkRow[] = [];
    for (let i = 1; i <= half; i += 1) {
      nodes.push(node(i, 'Reroute', { inputs: [['', '*', i]], outputs: ['*'] }));
      links.push([i, i - 1, 0, i, 0, 'IMAGE']);
    }
    for (let i = half + 1; i <= 2 * half; i += 1) {
      nodes.push(node(i, 'Save', { inputs: [['images', 'IMAGE', i]], values: [`s${i}`] }));
      links.push([i, half, 0, i, 0, 'IMAGE']);
    }
    // Walking the chain once per consumer would be 2.5e9 steps: this test would time out.
    const { prompt } = convertUiWorkflow(graph(nodes, links), defs);
    expect(Object.keys(prompt)).toHaveLength(half + 1);
    expect(((prompt[String(2 * half)] as JsonObject).inputs as JsonObject).images).toEqual(['0', 0]);
  });
});

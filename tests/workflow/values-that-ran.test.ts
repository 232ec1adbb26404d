// The editor graph kept with a run's outputs carries the values that ran: each value edited in the
// form is written back where the editor reads it, and the graph then converts to what ran.
import { describe, expect, it } from 'vitest';
import { convertUiWorkflow } from '@main/workflow/convert-ui';
import { editorGraphForRun, graphWithValuesThatRan } from '@main/workflow/values-that-ran';
import type { JsonObject } from '@shared/json';
import { basicGraph, definitions, graph, linkObjects, node } from './ui-fixtures';

const defs = definitions();

function inputsOf(prompt: JsonObject, id: string): JsonObject {
  return (prompt[id] as JsonObject).inputs as JsonObject;
}

describe('the values that ran, written into the editor graph', () => {
  it('puts edited widget values in their widgets_values slots (the seed control stays), and the graph converts to what ran', () => {
    const original = basicGraph();
    const ran = structuredClone(convertUiWorkflow(original, defs).prompt);
    Object.assign(inputsOf(ran, '3'), { seed: 987654321, steps: 12 });
    inputsOf(ran, '2').text = 'an edited prompt';
    const { graph: kept, unplaced } = graphWithValuesThatRan(original, ran, defs);
    expect(unplaced).toEqual([]);
    expect(convertUiWorkflow(kept, defs).prompt).toEqual(ran);
    const sampler = (kept.nodes as JsonObject[]).find((n) => n.id === 3)!;
    expect(sampler.widgets_values).toEqual([987654321, 'randomize', 12, 'heun', 0.75]);
    // The file's own graph is left as it was.
    expect(convertUiWorkflow(original, defs).prompt).not.toEqual(ran);
  });

  it("writes a subgraph's promoted value on the instance and a PrimitiveNode's value on the primitive", () => {
    const sub: JsonObject = {
      id: 'enc',
      name: 'Encode',
      inputNode: { id: -10 },
      outputNode: { id: -20 },
      inputs: [
        { id: 'c', name: 'clip', type: 'CLIP', linkIds: [1] },
        { id: 't', name: 'text', type: 'STRING', linkIds: [2] },
      ],
      outputs: [],
      nodes: [
        node(5, 'Encode', {
          inputs: [
            ['text', 'STRING', 2, 'text'],
            ['clip', 'CLIP', 1],
          ],
          outputs: ['CONDITIONING'],
          values: ['inner'],
        }),
      ],
      links: linkObjects([
        [1, -10, 0, 5, 1, 'CLIP'],
        [2, -10, 1, 5, 0, 'STRING'],
      ]),
    };
    const g = graph(
      [
        node(1, 'Loader', { outputs: ['MODEL', 'CLIP', 'VAE'], values: ['a.safetensors'] }),
        node(12, 'enc', {
          inputs: [
            ['clip', 'CLIP', 1],
            ['text', 'STRING', null, 'text'],
          ],
          values: ['promoted'],
        }),
        node(20, 'PrimitiveNode', { outputs: ['INT'], values: [5, 'fixed'] }),
        node(3, 'Sampler', {
          inputs: [
            ['model', 'MODEL', 2],
            ['seed', 'INT', 3, 'seed'],
          ],
          outputs: ['LATENT'],
          values: [5, 'fixed', 10, 'euler', 1],
        }),
      ],
      [
        [1, 1, 1, 12, 0, 'CLIP'],
        [2, 1, 0, 3, 0, 'MODEL'],
        [3, 20, 0, 3, 1, 'INT'],
      ],
      { definitions: { subgraphs: [sub] } },
    );
    const ran = structuredClone(convertUiWorkflow(g, defs).prompt);
    inputsOf(ran, '12:5').text = 'edited through the instance';
    inputsOf(ran, '3').seed = 77;
    const { graph: kept } = graphWithValuesThatRan(g, ran, defs);
    const nodes = kept.nodes as JsonObject[];
    expect(nodes.find((n) => n.id === 12)!.widgets_values).toEqual(['edited through the instance']);
    expect(nodes.find((n) => n.id === 20)!.widgets_values).toEqual([77, 'fixed']);
    expect(convertUiWorkflow(kept, defs).prompt).toEqual(ran);
  });

  it('names an edited value the file never stored, and sends no graph when the graph no longer converts', async () => {
    const g = graph([node(1, 'Sampler', { values: [5, 'fixed', 12, 'euler'] })], []);
    const ran = structuredClone(convertUiWorkflow(g, defs).prompt);
    inputsOf(ran, '1').denoise = 0.3; // a default: the file has no slot for it
    expect(graphWithValuesThatRan(g, ran, defs).unplaced).toEqual(['1.denoise']);
    const warnings: string[] = [];
    const broken = graph([node(1, 'NoSuchClass', { values: [1, 2, 3] })], []);
    expect(
      await editorGraphForRun(
        broken,
        ran,
        async () => defs,
        (w) => warnings.push(w),
      ),
    ).toBeNull();
    expect(warnings[0]).toMatch(/^The editor graph is not sent with this run: .*NoSuchClass/);
    expect(
      await editorGraphForRun(
        null,
        ran,
        async () => defs,
        (w) => warnings.push(w),
      ),
    ).toBeNull();
  });
});

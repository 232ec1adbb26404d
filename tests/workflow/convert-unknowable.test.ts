// What no file can hold, said plainly: a widget the editor computes when it queues (the 3D viewer's
// scene picture) is named in a warning while the rest of the node converts exactly, and a graph with
// nothing to run converts to an empty prompt with the reason.
import { describe, expect, it } from 'vitest';
import { convertUiWorkflow } from '@main/workflow/convert-ui';
import type { JsonObject } from '@shared/json';
import { definitions, graph, node } from './ui-fixtures';

/** A 3D loader as the server defines it: the model file, the viewer's picture, its size. */
const viewer = {
  Viewer3D: {
    input: {
      required: { model_file: [[], { file_upload: true }], image: ['LOAD_3D', {}], width: ['INT', { default: 1024 }], height: ['INT', { default: 1024 }] },
      optional: { preview: ['LOAD_3D', { default: 'none' }] },
    },
    input_order: { required: ['model_file', 'image', 'width', 'height'], optional: ['preview'] },
    output: ['IMAGE', 'MASK'],
    name: 'Viewer3D',
  },
};
const defs = definitions(viewer);

function inputsOf(prompt: JsonObject, id: string): JsonObject {
  return (prompt[id] as JsonObject).inputs as JsonObject;
}

describe('a widget computed when the editor queues', () => {
  it('keeps the slots of the viewer buttons and its own, names it in a warning, and converts the rest exactly', () => {
    // model, three buttons, the picture, width, height, the optional viewer (its own buttons and picture)
    const g = graph(
      [
        node(5, 'Viewer3D', {
          outputs: ['IMAGE', 'MASK'],
          values: ['cube.glb', 'upload3dmodel', 'uploadExtraResources', 'clear', { image: 'old.png' }, 640, 480],
        }),
      ],
      [],
    );
    const { prompt, warnings, unknowable } = convertUiWorkflow(g, defs);
    expect(inputsOf(prompt, '5')).toEqual({ model_file: 'cube.glb', width: 640, height: 480, preview: 'none' });
    expect(unknowable).toEqual([
      { nodeId: '5', classType: 'Viewer3D', input: 'image', why: expect.stringContaining('picture of the 3D scene') as string, required: true },
      { nodeId: '5', classType: 'Viewer3D', input: 'preview', why: expect.stringContaining('picture of the 3D scene') as string, required: false },
    ]);
    expect(warnings[0]).toMatch(
      /^Node 5 \(Viewer3D\): input "image" cannot be converted: it is a picture of the 3D scene .*; it is required, so the server will refuse the prompt without it\.$/,
    );
    expect(warnings[1]).toMatch(/input "preview" .*; its default is sent instead\.$/);
  });

  it('reads an older file (no buttons, no picture stored) by position, as the editor does', () => {
    // The editor lays its newer widgets over the old values: the buttons take them, width and height keep their defaults.
    const g = graph([node(5, 'Viewer3D', { outputs: ['IMAGE', 'MASK'], values: ['', 1024, 1024, '#000000'] })], []);
    expect(inputsOf(convertUiWorkflow(g, defs).prompt, '5')).toEqual({ model_file: '', width: 1024, height: 1024, preview: 'none' });
  });

  it('is not unknowable when a link feeds it', () => {
    const g = graph(
      [
        node(1, 'LoadImage', { outputs: ['IMAGE', 'MASK'], values: ['in.png', 'red'] }),
        node(5, 'Viewer3D', { inputs: [['image', 'LOAD_3D', 1]], values: ['cube.glb'] }),
      ],
      [[1, 1, 0, 5, 0, 'LOAD_3D']],
    );
    const { prompt, unknowable } = convertUiWorkflow(g, defs);
    expect(inputsOf(prompt, '5').image).toEqual(['1', 0]);
    expect(unknowable.map((u) => u.input)).toEqual(['preview']);
  });
});

describe('a graph with nothing to run', () => {
  it('converts to an empty prompt and says what the graph held and why none of it runs', () => {
    const g = graph(
      [
        node(1, 'Note', { values: ['read me'] }),
        node(2, 'Loader', { outputs: ['MODEL', 'CLIP', 'VAE'], values: ['a.safetensors'], mode: 2 }),
        node(3, 'Decode', {
          inputs: [
            ['samples', 'LATENT', null],
            ['vae', 'VAE', 1],
          ],
          outputs: ['IMAGE'],
          mode: 4,
        }),
        node(4, 'Reroute', { inputs: [['', '*', null]], outputs: ['*'] }),
      ],
      [[1, 2, 2, 3, 1, 'VAE']],
      { groups: [{ title: 'Frame', bounding: [0, 0, 10, 10] }] },
    );
    const { prompt, emptyBecause } = convertUiWorkflow(g, definitions());
    expect(prompt).toEqual({});
    expect(emptyBecause).toBe(
      'Nothing in this workflow runs on the server: it holds 1 note (Note 1), which the editor never sends; 1 muted node (Loader 2), which the server never runs; ' +
        '1 bypassed node (Decode 3), which the editor passes by; 1 Reroute or Primitive node (Reroute 4), which the editor resolves into the nodes they feed; ' +
        '1 group frame, which the editor draws around nodes and never sends.',
    );
  });

  it('says so when the graph has no nodes at all, and has no explanation for a prompt with nodes', () => {
    expect(convertUiWorkflow(graph([], []), definitions()).emptyBecause).toBe('The workflow has no nodes at all: there is nothing to run.');
    expect(convertUiWorkflow(graph([node(1, 'Loader', { values: ['a.safetensors'] })], []), definitions()).emptyBecause).toBeNull();
  });
});

// Links past what the server never sees: Reroutes, PrimitiveNodes, notes, muted and bypassed nodes.
import { describe, expect, it } from 'vitest';
import { convertUiWorkflow } from '@main/workflow/convert-ui';
import type { JsonObject } from '@shared/json';
import { basicGraph, definitions, graph, graphV1, node } from './ui-fixtures';

const defs = definitions();

function inputsOf(prompt: JsonObject, id: string): JsonObject {
  return (prompt[id] as JsonObject).inputs as JsonObject;
}

const reroute = (id: number, link: number | null): JsonObject => node(id, 'Reroute', { inputs: [['', '*', link]], outputs: ['*'] });

describe('virtual nodes', () => {
  it('passes links through a chain of Reroutes', () => {
    const g = graph(
      [
        node(1, 'Loader', { outputs: ['MODEL', 'CLIP', 'VAE'], values: ['a.safetensors'] }),
        reroute(10, 1),
        reroute(11, 2),
        node(2, 'Encode', { inputs: [['clip', 'CLIP', 3]], values: ['hi'] }),
      ],
      [
        [1, 1, 1, 10, 0, 'CLIP'],
        [2, 10, 0, 11, 0, 'CLIP'],
        [3, 11, 0, 2, 0, 'CLIP'],
      ],
    );
    const { prompt, warnings } = convertUiWorkflow(g, defs);
    expect(Object.keys(prompt).sort()).toEqual(['1', '2']);
    expect(inputsOf(prompt, '2')).toEqual({ text: 'hi', clip: ['1', 1] });
    expect(warnings).toEqual([]);
  });

  it('warns when a Reroute chain ends nowhere, and leaves the input unconnected', () => {
    const g = graph(
      [reroute(10, null), reroute(11, 1), node(2, 'Encode', { inputs: [['clip', 'CLIP', 2]], values: ['hi'] })],
      [
        [1, 10, 0, 11, 0, 'CLIP'],
        [2, 11, 0, 2, 0, 'CLIP'],
      ],
    );
    const { prompt, warnings } = convertUiWorkflow(g, defs);
    expect(inputsOf(prompt, '2')).toEqual({ text: 'hi' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/Node 2 \(Encode\): input "clip" comes through Reroute 10, which has no input/);
  });

  it("writes a PrimitiveNode's value into every target, directly and through a Reroute", () => {
    const g = graph(
      [
        node(9, 'PrimitiveNode', { outputs: ['INT'], values: [77, 'fixed'] }),
        reroute(10, 2),
        node(1, 'Sampler', { inputs: [['seed', 'INT', 1, 'seed']], values: [5, 'fixed', 10, 'euler', 1] }),
        node(2, 'Sampler', { inputs: [['seed', 'INT', 3, 'seed']], values: [6, 'fixed', 10, 'euler', 1] }),
      ],
      [
        [1, 9, 0, 1, 0, 'INT'],
        [2, 9, 0, 10, 0, 'INT'],
        [3, 10, 0, 2, 0, 'INT'],
      ],
    );
    const { prompt } = convertUiWorkflow(g, defs);
    expect(Object.keys(prompt).sort()).toEqual(['1', '2']);
    expect(inputsOf(prompt, '1').seed).toBe(77);
    expect(inputsOf(prompt, '2').seed).toBe(77);
  });

  it('drops Note and MarkdownNote', () => {
    const g = basicGraph();
    (g.nodes as JsonObject[]).push(node(20, 'Note', { values: ['remember'] }), node(21, 'MarkdownNote', { values: ['# hi'] }));
    expect(Object.keys(convertUiWorkflow(g, defs).prompt).sort()).toEqual(['1', '2', '3', '4', '5']);
  });
});

describe('modes', () => {
  it('drops a muted node and every input linked to it (widget value included)', () => {
    const g = graph(
      [
        node(7, 'Ordered', { outputs: ['STRING'], values: ['s', 1], mode: 2 }),
        node(2, 'Encode', { inputs: [['text', 'STRING', 1, 'text']], values: ['kept?'] }),
      ],
      [[1, 7, 0, 2, 0, 'STRING']],
    );
    const { prompt } = convertUiWorkflow(g, defs);
    expect(Object.keys(prompt)).toEqual(['2']);
    expect(inputsOf(prompt, '2')).toEqual({});
  });

  it("passes a bypassed node's input of the same type, preferring the same slot index", () => {
    // Mix's outputs: slot 0 IMAGE. Its inputs: 0 MASK, 1 IMAGE -> the IMAGE at slot 1 (the first of that type).
    // Blur's slot 0 is IMAGE -> preferred.
    const g = graph(
      [
        node(1, 'LoadImage', { outputs: ['IMAGE', 'MASK'], values: ['in.png', 'alpha'] }),
        node(2, 'Blur', {
          inputs: [
            ['image', 'IMAGE', 1],
            ['mask', 'MASK', 2],
          ],
          outputs: ['IMAGE'],
          values: [3],
          mode: 4,
        }),
        node(3, 'Mix', {
          inputs: [
            ['mask', 'MASK', 3],
            ['image', 'IMAGE', 4],
          ],
          outputs: ['IMAGE'],
          mode: 4,
        }),
        node(4, 'Save', { inputs: [['images', 'IMAGE', 5]], values: ['a'] }),
        node(5, 'Save', { inputs: [['images', 'IMAGE', 6]], values: ['b'] }),
      ],
      [
        [1, 1, 0, 2, 0, 'IMAGE'],
        [2, 1, 1, 2, 1, 'MASK'],
        [3, 1, 1, 3, 0, 'MASK'],
        [4, 2, 0, 3, 1, 'IMAGE'],
        [5, 3, 0, 4, 0, 'IMAGE'],
        [6, 2, 0, 5, 0, 'IMAGE'],
      ],
    );
    const { prompt } = convertUiWorkflow(g, defs);
    expect(Object.keys(prompt).sort()).toEqual(['1', '4', '5']);
    expect(inputsOf(prompt, '4').images).toEqual(['1', 0]);
    expect(inputsOf(prompt, '5').images).toEqual(['1', 0]);
  });

  it('prefers the same slot index among several inputs of the type', () => {
    const pair = { Pair: { input: { required: { a: ['IMAGE', {}], b: ['IMAGE', {}] } }, output: ['IMAGE', 'IMAGE'], name: 'Pair' } };
    const g = graph(
      [
        node(1, 'LoadImage', { outputs: ['IMAGE', 'MASK'], values: ['in.png', 'alpha'] }),
        node(6, 'Blur', { inputs: [['image', 'IMAGE', 1]], outputs: ['IMAGE'], values: [9] }),
        node(2, 'Pair', {
          inputs: [
            ['a', 'IMAGE', 2],
            ['b', 'IMAGE', 3],
          ],
          outputs: ['IMAGE', 'IMAGE'],
          mode: 4,
        }),
        node(4, 'Save', { inputs: [['images', 'IMAGE', 4]], values: ['first'] }),
        node(5, 'Save', { inputs: [['images', 'IMAGE', 5]], values: ['second'] }),
      ],
      [
        [1, 1, 0, 6, 0, 'IMAGE'],
        [2, 1, 0, 2, 0, 'IMAGE'],
        [3, 6, 0, 2, 1, 'IMAGE'],
        [4, 2, 0, 4, 0, 'IMAGE'],
        [5, 2, 1, 5, 0, 'IMAGE'],
      ],
    );
    const { prompt } = convertUiWorkflow(g, definitions(pair));
    expect(inputsOf(prompt, '4').images).toEqual(['1', 0]);
    expect(inputsOf(prompt, '5').images).toEqual(['6', 0]);
  });

  it('leaves an input unconnected when the bypassed node has no input of its type', () => {
    const g = graph(
      [
        node(1, 'Loader', { outputs: ['MODEL', 'CLIP', 'VAE'], values: ['a.safetensors'] }),
        node(2, 'Decode', {
          inputs: [
            ['samples', 'LATENT', null],
            ['vae', 'VAE', 1],
          ],
          outputs: ['IMAGE'],
          mode: 4,
        }),
        node(3, 'Save', { inputs: [['images', 'IMAGE', 2]], values: ['x'] }),
      ],
      [
        [1, 1, 2, 2, 1, 'VAE'],
        [2, 2, 0, 3, 0, 'IMAGE'],
      ],
    );
    expect(inputsOf(convertUiWorkflow(g, defs).prompt, '3')).toEqual({ filename_prefix: 'x' });
  });

  it('drops links to nodes that are gone, as the editor does', () => {
    const g = graph([node(2, 'Encode', { inputs: [['clip', 'CLIP', 1]], values: ['hi'] })], [[1, 99, 1, 2, 0, 'CLIP']]);
    expect(inputsOf(convertUiWorkflow(g, defs).prompt, '2')).toEqual({ text: 'hi' });
    // A socket whose link record is missing altogether is unconnected too.
    const noRecord = graph([node(2, 'Encode', { inputs: [['clip', 'CLIP', 5]], values: ['hi'] })], []);
    expect(inputsOf(convertUiWorkflow(noRecord, defs).prompt, '2')).toEqual({ text: 'hi' });
  });
});

describe('link schemas', () => {
  it('gives the same prompt for schema 0.4 link arrays and schema 1 link objects', () => {
    const v04 = basicGraph();
    const v1 = graphV1(
      v04.nodes as JsonObject[],
      (v04.links as JsonObject[]).map((l) => l as unknown as [number, number, number, number, number, string]),
    );
    expect(convertUiWorkflow(v1, defs).prompt).toEqual(convertUiWorkflow(v04, defs).prompt);
  });
});

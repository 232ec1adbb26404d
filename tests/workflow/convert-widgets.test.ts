// Widget values -> input names, as the editor maps them.
import { describe, expect, it } from 'vitest';
import { convertUiWorkflow } from '@main/workflow/convert-ui';
import { expandDynamicPrompt } from '@main/workflow/ui-convert/dynamic-prompts';
import { parseJsonExact, stringifyJsonExact, type JsonObject } from '@shared/json';
import { basicGraph, definitions, graph, node } from './ui-fixtures';

const defs = definitions();

function inputsOf(prompt: JsonObject, id: string): JsonObject {
  return (prompt[id] as JsonObject).inputs as JsonObject;
}

describe('widget values', () => {
  it('converts the basic chain: ids as strings, class, title, widgets in input order, links', () => {
    const { prompt, warnings } = convertUiWorkflow(basicGraph(), defs);
    expect(warnings).toEqual([]);
    expect(prompt).toEqual({
      '1': { inputs: { ckpt_name: 'b.safetensors' }, class_type: 'Loader', _meta: { title: 'Load Checkpoint' } },
      '2': { inputs: { text: 'a red fox', clip: ['1', 1] }, class_type: 'Encode', _meta: { title: 'Positive' } },
      '3': {
        inputs: { seed: 42, steps: 30, sampler_name: 'heun', denoise: 0.75, model: ['1', 0], positive: ['2', 0] },
        class_type: 'Sampler',
        _meta: { title: 'Sampler' },
      },
      '4': { inputs: { samples: ['3', 0], vae: ['1', 2] }, class_type: 'Decode', _meta: { title: 'VAE Decode' } },
      '5': { inputs: { filename_prefix: 'fox', images: ['4', 0] }, class_type: 'Save', _meta: { title: 'Save Image' } },
    });
  });

  it('follows input_order when the definition gives it, else required then optional', () => {
    const { prompt } = convertUiWorkflow(graph([node(1, 'Ordered', { values: ['first', 7] }), node(2, 'Unordered', { values: [false, 3, 0.25] })], []), defs);
    expect(inputsOf(prompt, '1')).toEqual({ a: 'first', b: 7 });
    expect(inputsOf(prompt, '2')).toEqual({ y: false, x: 3, z: 0.25 });
  });

  it('skips every form of the seed control value, and does not eat a value when the file has none', () => {
    for (const control of ['fixed', 'increment', 'decrement', 'randomize', true, false]) {
      const g = graph([node(1, 'Sampler', { values: [5, control, 12, 'euler', 0.5] })], []);
      expect(inputsOf(convertUiWorkflow(g, defs).prompt, '1')).toEqual({ seed: 5, steps: 12, sampler_name: 'euler', denoise: 0.5 });
    }
    // A file saved before the control widget existed: the next value is the steps.
    const old = graph([node(1, 'Sampler', { values: [5, 12, 'euler', 0.5] })], []);
    expect(inputsOf(convertUiWorkflow(old, defs).prompt, '1')).toEqual({ seed: 5, steps: 12, sampler_name: 'euler', denoise: 0.5 });
    // noise_seed gets a control widget even without the definition's flag.
    const noise = graph([node(1, 'RandomNoise', { values: [9, 'fixed'] })], []);
    expect(inputsOf(convertUiWorkflow(noise, defs).prompt, '1')).toEqual({ noise_seed: 9 });
  });

  it("skips a controlled combo's control value and filter string", () => {
    const g = graph([node(1, 'Picker', { values: ['green', 'randomize', 're', 4] })], []);
    expect(inputsOf(convertUiWorkflow(g, defs).prompt, '1')).toEqual({ choice: 'green', size: 4 });
  });

  it('reads widgets_values stored as an object keyed by name', () => {
    const g = graph([node(1, 'Sampler', { values: { steps: 8, seed: 3, sampler_name: 'heun', denoise: 0.1, seed_control: 'fixed' } })], []);
    expect(inputsOf(convertUiWorkflow(g, defs).prompt, '1')).toEqual({ seed: 3, steps: 8, sampler_name: 'heun', denoise: 0.1 });
  });

  it('gives widgets the file has no value for their default, as a freshly made widget has', () => {
    const g = graph([node(1, 'Sampler', { values: [5, 'fixed'] })], []);
    expect(inputsOf(convertUiWorkflow(g, defs).prompt, '1')).toEqual({ seed: 5, steps: 20, sampler_name: 'euler', denoise: 1 });
  });

  it('connection inputs own no slot; a forceInput socket owns one only when recorded as a converted widget', () => {
    const bare = graph(
      [node(1, 'Ordered', { outputs: ['STRING'], values: ['x', 1] }), node(2, 'Forced', { inputs: [['value', 'STRING', 1]], values: [2.5] })],
      [[1, 1, 0, 2, 0, 'STRING']],
    );
    expect(inputsOf(convertUiWorkflow(bare, defs).prompt, '2')).toEqual({ value: ['1', 0], scale: 2.5 });
    const converted = graph(
      [node(1, 'Ordered', { outputs: ['STRING'], values: ['x', 1] }), node(2, 'Forced', { inputs: [['value', 'STRING', 1, 'value']], values: ['', 2.5] })],
      [[1, 1, 0, 2, 0, 'STRING']],
    );
    expect(inputsOf(convertUiWorkflow(converted, defs).prompt, '2')).toEqual({ value: ['1', 0], scale: 2.5 });
  });

  it('a widget input that is linked takes the link (its stored value keeps its slot)', () => {
    const g = graph(
      [
        node(1, 'RandomNoise', { outputs: ['NOISE'], values: [1, 'fixed'] }),
        node(7, 'Ordered', { outputs: ['STRING'], values: ['s', 1] }),
        node(2, 'Sampler', { inputs: [['seed', 'INT', 1, 'seed']], values: [99, 'fixed', 10, 'heun', 1] }),
      ],
      [[1, 7, 0, 2, 0, 'INT']],
    );
    expect(inputsOf(convertUiWorkflow(g, defs).prompt, '2')).toEqual({ seed: ['7', 0], steps: 10, sampler_name: 'heun', denoise: 1 });
  });

  it('gives editor-drawn widget types (webcam) a slot of their own; the picture the camera takes at queue time is named, not sent', () => {
    const cam = {
      Cam: {
        input: { required: { image: ['WEBCAM', {}], width: ['INT', { default: 640 }], capture_on_queue: ['BOOLEAN', { default: true }] } },
        output: ['IMAGE'],
        name: 'Cam',
      },
    };
    const g = graph([node(1, 'Cam', { values: ['', 320, false] })], []);
    const { prompt, unknowable } = convertUiWorkflow(g, definitions(cam));
    expect(inputsOf(prompt, '1')).toEqual({ width: 320, capture_on_queue: false });
    expect(unknowable).toMatchObject([{ nodeId: '1', input: 'image', required: true, why: expect.stringContaining('from the camera') as string }]);
  });

  it('skips the upload button value after the last required widget', () => {
    const g = graph([node(1, 'LoadImage', { outputs: ['IMAGE', 'MASK'], values: ['in.png', 'red', 'image'] })], []);
    expect(inputsOf(convertUiWorkflow(g, defs).prompt, '1')).toEqual({ image: 'in.png', channel: 'red' });
  });

  it('keeps a seed beyond 2^53 exact', () => {
    const text = stringifyJsonExact(graph([node(1, 'Sampler', { values: [0, 'fixed', 1, 'euler', 1] })], [])).replace(
      '"widgets_values":[0,',
      '"widgets_values":[18446744073709551615,',
    );
    const { prompt } = convertUiWorkflow(parseJsonExact(text) as JsonObject, defs);
    expect(stringifyJsonExact(prompt)).toContain('"seed":18446744073709551615');
  });

  it('expands dynamic prompts in text widgets that ask for it, as the editor does at queue time', () => {
    const dynamic = {
      Prompted: {
        input: { required: { text: ['STRING', { multiline: true, dynamicPrompts: true }], plain: ['STRING', {}] } },
        output: ['STRING'],
        name: 'Prompted',
      },
    };
    const g = graph([node(1, 'Prompted', { values: ['a {red|red} fox // a comment\n/* gone */in {snow|snow}', '{kept|as is}'] })], []);
    expect(inputsOf(convertUiWorkflow(g, definitions(dynamic)).prompt, '1')).toEqual({ text: 'a red fox \nin snow', plain: '{kept|as is}' });
    const picks = [0.1, 0.9];
    expect(expandDynamicPrompt('{a|b|c} and {x|y}', () => picks.shift()!)).toBe('a and y');
    expect(expandDynamicPrompt('escaped \\{not|this} stays')).toBe('escaped \\{not|this} stays');
  });
});

describe('newer node definitions', () => {
  /** A dynamic combo: each option brings its own inputs (widgets and a socket). */
  const newer = {
    Resize: {
      input: {
        required: {
          image: ['IMAGE', {}],
          mode: [
            'COMFY_DYNAMICCOMBO_V3',
            {
              options: [
                { key: 'by factor', inputs: { required: { factor: ['FLOAT', { default: 1.5 }] } } },
                { key: 'to size', inputs: { required: { width: ['INT', { default: 64 }], height: ['INT', { default: 64 }], reference: ['IMAGE', {}] } } },
                { key: 'seeded', inputs: { required: { seed: ['INT', { default: 0, control_after_generate: true }] } } },
              ],
            },
          ],
          method: [['area', 'nearest'], { default: 'area' }],
        },
        optional: { device: [['default', 'cpu'], { advanced: true }], quiet: ['BOOLEAN', { default: false, hidden: true }] },
      },
      input_order: { required: ['image', 'mode', 'method'], optional: ['device', 'quiet'] },
      output: ['IMAGE'],
      name: 'Resize',
    },
  };
  const newerDefs = definitions(newer);

  it("puts a dynamic combo's chosen option's widgets right after it, named COMBO.INPUT", () => {
    const sized = graph([node(1, 'Resize', { values: ['to size', 320, 240, 'nearest', 'cpu', true] })], []);
    expect(inputsOf(convertUiWorkflow(sized, newerDefs).prompt, '1')).toEqual({
      mode: 'to size',
      'mode.width': 320,
      'mode.height': 240,
      method: 'nearest',
      device: 'cpu',
      quiet: true,
    });
    const factor = graph([node(1, 'Resize', { values: ['by factor', 2, 'area'] })], []);
    expect(inputsOf(convertUiWorkflow(factor, newerDefs).prompt, '1')).toEqual({
      mode: 'by factor',
      'mode.factor': 2,
      method: 'area',
      device: 'default',
      quiet: false,
    });
  });

  it("gives an option's seed its control slot, links an option's socket by its COMBO.INPUT name, and reads named values", () => {
    const seeded = graph([node(1, 'Resize', { values: ['seeded', 9, 'randomize', 'nearest'] })], []);
    expect(inputsOf(convertUiWorkflow(seeded, newerDefs).prompt, '1')).toMatchObject({ mode: 'seeded', 'mode.seed': 9, method: 'nearest' });
    const linked = graph(
      [
        node(1, 'LoadImage', { outputs: ['IMAGE', 'MASK'], values: ['in.png', 'red'] }),
        node(2, 'Resize', {
          inputs: [
            ['image', 'IMAGE', 1],
            ['mode.reference', 'IMAGE', 2],
          ],
          values: ['to size', 8, 16, 'area'],
        }),
      ],
      [
        [1, 1, 0, 2, 0, 'IMAGE'],
        [2, 1, 0, 2, 1, 'IMAGE'],
      ],
    );
    expect(inputsOf(convertUiWorkflow(linked, newerDefs).prompt, '2')).toMatchObject({
      image: ['1', 0],
      'mode.reference': ['1', 0],
      'mode.width': 8,
      'mode.height': 16,
      method: 'area',
    });
    const named = graph([node(1, 'Resize', { values: { mode: 'by factor', 'mode.factor': 3, method: 'nearest' } })], []);
    expect(inputsOf(convertUiWorkflow(named, newerDefs).prompt, '1')).toMatchObject({ mode: 'by factor', 'mode.factor': 3, method: 'nearest' });
  });

  it('gives dynamic inputs (autogrow, match-type) no widget slot: each added socket is sent under its own name', () => {
    const grow = {
      Batch: {
        input: {
          required: {
            images: ['COMFY_AUTOGROW_V3', { template: { input: { required: { image: ['IMAGE', {}] } }, prefix: 'image', min: 2, max: 50 } }],
            pick: ['COMFY_MATCHTYPE_V3', { template: { template_id: 't', allowed_types: 'IMAGE,MASK' } }],
            spacing: ['INT', { default: 0 }],
          },
        },
        input_order: { required: ['images', 'pick', 'spacing'] },
        output: ['IMAGE'],
        name: 'Batch',
      },
    };
    const g = graph(
      [
        node(1, 'LoadImage', { outputs: ['IMAGE', 'MASK'], values: ['in.png', 'red'] }),
        node(2, 'Batch', {
          inputs: [
            ['images.image0', 'IMAGE', 1],
            ['images.image1', 'IMAGE', 2],
            ['images.image2', 'IMAGE', null],
            ['pick', 'IMAGE', 3],
          ],
          values: [4],
        }),
      ],
      [
        [1, 1, 0, 2, 0, 'IMAGE'],
        [2, 1, 0, 2, 1, 'IMAGE'],
        [3, 1, 1, 2, 3, 'MASK'],
      ],
    );
    expect(inputsOf(convertUiWorkflow(g, definitions(grow)).prompt, '2')).toEqual({
      spacing: 4,
      'images.image0': ['1', 0],
      'images.image1': ['1', 0],
      pick: ['1', 1],
    });
  });
});

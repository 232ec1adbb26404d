import { describe, expect, it } from 'vitest';
import { isJsonObject, parseJsonExact, stringifyJsonExact, type JsonObject, type JsonValue } from '@shared/json';
import { createNodeLibrary } from '@main/demo/nodes';

const library = createNodeLibrary({ listInputFiles: () => ['example.png', 'sample (1).png'] });

// Keys every entry of the real server's /object_info has (traces/object_info.json, entry_key_sets).
const REQUIRED_KEYS = [
  'input',
  'input_order',
  'output',
  'output_is_list',
  'output_name',
  'name',
  'display_name',
  'description',
  'python_module',
  'category',
  'output_node',
];

function section(def: JsonObject, name: string): JsonObject {
  const input = def.input as JsonObject;
  const part = input[name];
  return isJsonObject(part) ? part : {};
}

describe('node definitions', () => {
  it('has the expected classes', () => {
    expect([...library.keys()].sort()).toEqual(
      [
        'DemoAudio',
        'DemoInpaint',
        'DemoLargeOutput',
        'DemoPartnerNode',
        'DemoSampler',
        'DemoVideo',
        'ImageBlur',
        'ImageInvert',
        'LoadImage',
        'MaskToImage',
        'PreviewImage',
        'SaveImage',
      ].sort(),
    );
  });

  for (const [className, node] of library) {
    it(`${className}: has the real server's entry shape`, () => {
      const def = node.definition;
      const keys = Object.keys(def);
      expect(keys.slice(0, REQUIRED_KEYS.length)).toEqual(REQUIRED_KEYS);
      expect(keys.length).toBe(className === 'DemoPartnerNode' ? REQUIRED_KEYS.length + 1 : REQUIRED_KEYS.length);
      expect(def.name).toBe(className);
      expect(typeof def.display_name).toBe('string');
      expect(typeof def.output_node).toBe('boolean');
      const outputs = def.output as JsonValue[];
      expect((def.output_name as JsonValue[]).length).toBe(outputs.length);
      expect(def.output_is_list).toEqual(outputs.map(() => false));
      // input_order lists each section's inputs in order, and nothing else.
      const order = def.input_order as JsonObject;
      for (const name of ['required', 'optional', 'hidden']) {
        const inputs = Object.keys(section(def, name));
        if (inputs.length === 0) expect(order[name]).toBeUndefined();
        else expect(order[name]).toEqual(inputs);
      }
      // Every spec is [TYPE] or [TYPE, options]; numeric defaults lie within their range.
      for (const name of ['required', 'optional']) {
        for (const [inputName, spec] of Object.entries(section(def, name))) {
          expect(Array.isArray(spec), inputName).toBe(true);
          const [type, options] = spec as JsonValue[];
          expect(typeof type === 'string' || Array.isArray(type), inputName).toBe(true);
          if (options !== undefined) expect(isJsonObject(options), inputName).toBe(true);
          if ((type === 'INT' || type === 'FLOAT') && isJsonObject(options)) {
            const { default: d, min, max } = options as { default: number; min: number | bigint; max: number | bigint };
            // Mixed number/bigint comparisons are exact in JavaScript.
            expect(d >= min && d <= max, inputName).toBe(true);
            expect(min < max, inputName).toBe(true);
          }
        }
      }
      // Output nodes are exactly the nodes that return files.
      expect(def.output_node).toBe(['SaveImage', 'PreviewImage', 'DemoVideo', 'DemoAudio', 'DemoLargeOutput'].includes(className));
    });
  }

  it('serialises exactly: the seed maximum 2^64-1 survives stringifyJsonExact and parseJsonExact', () => {
    const all: JsonObject = {};
    for (const [name, node] of library) all[name] = node.definition;
    const text = stringifyJsonExact(all);
    expect(text).toContain('"max":18446744073709551615');
    expect(text).not.toContain('18446744073709552000');
    const parsed = parseJsonExact(text) as JsonObject;
    const seed = section(parsed.DemoSampler as JsonObject, 'required').seed as [string, JsonObject];
    expect(seed).toEqual(['INT', { default: 0, min: 0, max: 18446744073709551615n, control_after_generate: true, tooltip: expect.any(String) }]);
    expect(section(parsed.DemoInpaint as JsonObject, 'required').seed).toEqual(seed);
  });

  it('uses both combo styles: LoadImage a legacy upload combo, sampler_name a newer COMBO', () => {
    const load = library.get('LoadImage')!.definition;
    expect(section(load, 'required').image).toEqual([['example.png', 'sample (1).png'], { image_upload: true }]);
    expect(load.output).toEqual(['IMAGE', 'MASK']);
    expect(load.category).toBe('image');
    const sampler = library.get('DemoSampler')!.definition;
    expect(section(sampler, 'required').sampler_name).toEqual(['COMBO', { options: ['euler', 'dpmpp_2m', 'ddim'], default: 'euler' }]);
    expect(section(sampler, 'required').steps).toEqual(['INT', { default: 8, min: 1, max: 200, tooltip: expect.any(String) }]);
    expect(section(sampler, 'required').width).toEqual(['INT', { default: 256, min: 16, max: 2048, step: 8 }]);
    expect(section(sampler, 'required').prompt).toEqual(['STRING', { multiline: true, default: expect.any(String), tooltip: expect.any(String) }]);
    expect(Object.keys(section(sampler, 'optional'))).toEqual(['delay_ms', 'fail_at_step']);
    expect(section(library.get('DemoInpaint')!.definition, 'required').fill).toEqual([['noise', 'solid', 'blur'], { default: 'noise' }]);
  });

  it('matches the real SaveImage entry where it matters', () => {
    const save = library.get('SaveImage')!.definition;
    expect(section(save, 'required').images).toEqual(['IMAGE', { tooltip: 'The images to save.' }]);
    expect(section(save, 'hidden')).toEqual({ prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' });
    expect(save.output).toEqual([]);
    expect(save.output_node).toBe(true);
  });

  it('marks only the partner node as api_node', () => {
    for (const [name, node] of library) expect(node.definition.api_node === true).toBe(name === 'DemoPartnerNode');
  });
});

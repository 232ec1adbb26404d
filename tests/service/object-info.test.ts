// object_info parsing against the recorded node definitions (traces/object_info.json), read with
// exact numbers so that the seed's INT max 2^64-1 survives.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isJsonObject, parseJsonExact, stringifyJsonExact, type JsonObject } from '@shared/json';
import { parseNodeDefinitions, parseNodeDefinitionsReport, type InputSpec } from '@main/service/object-info';

const traceText = readFileSync(new URL('../demo/traces/object_info.json', import.meta.url), 'utf8');

/** An object_info answer assembled from the recorded entries (the trace wraps them with notes). */
function recordedAnswer(): string {
  const trace = parseJsonExact(traceText);
  if (!isJsonObject(trace)) throw new Error('trace is not an object');
  const answer: JsonObject = {};
  for (const name of ['LoadImage', 'ImageInvert', 'SaveImage', 'PreviewLoop']) {
    const entry = trace[name];
    if (!isJsonObject(entry)) throw new Error(`trace has no ${name}`);
    answer[name] = entry;
  }
  const v3 = trace.v3_example;
  if (!isJsonObject(v3) || !isJsonObject(v3.ImageStitch)) throw new Error('trace has no v3 example');
  answer.ImageStitch = v3.ImageStitch;
  // The newer combo form, a partner node, and a few flags the trace lacks.
  answer.PartnerImage = {
    input: {
      required: {
        model: ['COMBO', { options: ['fast', 'best'], default: 'best', multiselect: false }],
        tags: ['COMBO', { options: ['a', 'b', 'c'], multiselect: true }],
        prompt: ['STRING', { multiline: true, default: '' }],
        strength: ['FLOAT', { default: 0.5, min: 0, max: 1, step: 0.01, round: 0.001 }],
        enabled: ['BOOLEAN', { default: true }],
      },
      optional: { remote_choice: ['COMBO', { remote: { route: '/internal/x' } }] },
      hidden: { auth_token: 'AUTH_TOKEN_COMFY_ORG', unique_id: 'UNIQUE_ID' },
    },
    input_order: { required: ['prompt', 'model', 'tags', 'strength', 'enabled'], optional: ['remote_choice'], hidden: ['auth_token', 'unique_id'] },
    output: ['IMAGE'],
    output_is_list: [true],
    output_name: ['images'],
    name: 'PartnerImage',
    display_name: 'Partner Image',
    description: 'calls a partner API',
    category: 'api node/image',
    output_node: false,
    api_node: true,
    experimental: true,
    some_future_field: { anything: 1 },
  };
  return stringifyJsonExact(answer);
}

function input(definitionInputs: InputSpec[], name: string): InputSpec {
  const found = definitionInputs.find((i) => i.name === name);
  if (!found) throw new Error(`no input ${name}`);
  return found;
}

describe('parseNodeDefinitions on recorded definitions', () => {
  const defs = parseNodeDefinitions(recordedAnswer());

  it('reads every entry', () => {
    expect([...defs.keys()]).toEqual(['LoadImage', 'ImageInvert', 'SaveImage', 'PreviewLoop', 'ImageStitch', 'PartnerImage']);
  });

  it('legacy combo with image_upload (LoadImage)', () => {
    const load = defs.get('LoadImage');
    expect(load).toMatchObject({ name: 'LoadImage', displayName: 'Load Image', category: 'image', outputNode: false, apiNode: false });
    expect(load?.inputs).toHaveLength(1);
    expect(load?.inputs[0]).toMatchObject({
      section: 'required',
      name: 'image',
      kind: 'combo',
      options: ['sample (1).png', 'sample.png'],
      default: null,
      multiselect: false,
      imageUpload: true,
    });
    expect(load?.outputs).toEqual([
      { type: 'IMAGE', name: 'IMAGE', isList: false },
      { type: 'MASK', name: 'MASK', isList: false },
    ]);
  });

  it('links, tooltips, hidden inputs and output nodes (SaveImage)', () => {
    const save = defs.get('SaveImage');
    expect(save?.outputNode).toBe(true);
    expect(save?.outputs).toEqual([]);
    expect(save?.inputs.map((i) => `${i.section}:${i.name}:${i.kind}`)).toEqual([
      'required:images:link',
      'required:filename_prefix:string',
      'hidden:prompt:link',
      'hidden:extra_pnginfo:link',
    ]);
    expect(input(save?.inputs ?? [], 'images')).toMatchObject({ kind: 'link', type: 'IMAGE', tooltip: 'The images to save.' });
    expect(input(save?.inputs ?? [], 'filename_prefix')).toMatchObject({ kind: 'string', default: 'ComfyUI', multiline: false });
    expect(input(save?.inputs ?? [], 'prompt')).toMatchObject({ section: 'hidden', kind: 'link', type: 'PROMPT' });
  });

  it('INT and FLOAT ranges, optional inputs, the exact 2^64-1 seed max (PreviewLoop)', () => {
    const loop = defs.get('PreviewLoop');
    const inputs = loop?.inputs ?? [];
    expect(inputs.map((i) => `${i.section}:${i.name}`)).toEqual([
      'required:steps',
      'required:delay',
      'required:seed',
      'required:width',
      'required:height',
      'optional:fail_at_step',
      'hidden:unique_id',
    ]);
    expect(input(inputs, 'steps')).toMatchObject({ kind: 'int', default: 4, min: 1, max: 1000, step: null });
    expect(input(inputs, 'delay')).toMatchObject({ kind: 'float', default: 0.2, min: 0, max: 10, step: 0.05, round: null });
    const seed = input(inputs, 'seed');
    if (seed.kind !== 'int') throw new Error('seed is not an INT');
    expect(seed.max).toBe(18446744073709551615n);
    expect(typeof seed.max).toBe('bigint');
    expect(seed.min).toBe(0);
    expect(input(inputs, 'fail_at_step')).toMatchObject({ section: 'optional', kind: 'int', tooltip: 'raise an exception at this step (0 = never)' });
  });

  it('legacy combos with defaults, BOOLEAN, step (ImageStitch)', () => {
    const stitch = defs.get('ImageStitch');
    const inputs = stitch?.inputs ?? [];
    expect(input(inputs, 'direction')).toMatchObject({ kind: 'combo', options: ['right', 'down', 'left', 'up'], default: 'right' });
    expect(input(inputs, 'match_image_size')).toMatchObject({ kind: 'boolean', default: true });
    expect(input(inputs, 'spacing_width')).toMatchObject({ kind: 'int', step: 2 });
    expect(input(inputs, 'image2')).toMatchObject({ section: 'optional', kind: 'link', type: 'IMAGE' });
    expect(stitch?.description).toContain('Stitches image2 to image1');
  });

  it('newer COMBO form, multiselect, remote combo, api_node, input_order (PartnerImage)', () => {
    const partner = defs.get('PartnerImage');
    expect(partner).toMatchObject({ apiNode: true, experimental: true, deprecated: false, displayName: 'Partner Image' });
    const inputs = partner?.inputs ?? [];
    expect(inputs.map((i) => i.name)).toEqual(['prompt', 'model', 'tags', 'strength', 'enabled', 'remote_choice', 'auth_token', 'unique_id']);
    expect(input(inputs, 'model')).toMatchObject({ kind: 'combo', options: ['fast', 'best'], default: 'best', multiselect: false });
    expect(input(inputs, 'tags')).toMatchObject({ kind: 'combo', multiselect: true });
    expect(input(inputs, 'remote_choice')).toMatchObject({ kind: 'combo', options: [] });
    expect(input(inputs, 'prompt')).toMatchObject({ kind: 'string', multiline: true, default: '' });
    expect(input(inputs, 'strength')).toMatchObject({ kind: 'float', round: 0.001, step: 0.01 });
    expect(partner?.outputs).toEqual([{ type: 'IMAGE', name: 'images', isList: true }]);
  });
});

describe('tolerance', () => {
  it('the raw trace file (entries mixed with recording notes) parses, skipping what is not a definition', () => {
    const report = parseNodeDefinitionsReport(traceText);
    expect([...report.definitions.keys()]).toEqual(['LoadImage', 'ImageInvert', 'SaveImage', 'PreviewLoop']);
    const seed = report.definitions.get('PreviewLoop')?.inputs.find((i) => i.name === 'seed');
    expect(seed).toMatchObject({ kind: 'int', max: 18446744073709551615n });
    // status, bytes, node_count, v3_example, single_LoadImage_equal, single_unknown, entry_key_sets
    expect(report.warnings.length).toBe(7);
  });

  it('a malformed input is skipped with a warning; the node stays', () => {
    const text = JSON.stringify({
      Good: { input: { required: { a: ['INT', { default: 1 }] } }, output: [], name: 'Good' },
      HalfBad: { input: { required: { ok: ['STRING', {}], bad: 42, worse: ['INT', 'not options'], empty: [] }, optional: 'nope' }, name: 'HalfBad' },
      NoInput: { name: 'NoInput' },
      NotObject: [1, 2],
    });
    const report = parseNodeDefinitionsReport(text);
    expect([...report.definitions.keys()]).toEqual(['Good', 'HalfBad']);
    expect(report.definitions.get('HalfBad')?.inputs.map((i) => i.name)).toEqual(['ok']);
    expect(report.warnings).toHaveLength(6);
    expect(report.warnings.join('\n')).toMatch(/HalfBad: input "bad" skipped/);
    expect(report.warnings.join('\n')).toMatch(/NoInput: has no input object; skipped/);
  });

  it('defaults for missing descriptive fields', () => {
    const defs = parseNodeDefinitions('{"X":{"input":{}}}');
    expect(defs.get('X')).toEqual({
      name: 'X',
      displayName: 'X',
      category: '',
      description: '',
      outputNode: false,
      apiNode: false,
      deprecated: false,
      experimental: false,
      inputs: [],
      outputs: [],
    });
  });

  it('invalid JSON or a non-object fails with a protocol ServiceError', () => {
    expect(() => parseNodeDefinitions('{oops')).toThrow(expect.objectContaining({ kind: 'protocol' }));
    expect(() => parseNodeDefinitions('[]')).toThrow(expect.objectContaining({ kind: 'protocol' }));
  });
});

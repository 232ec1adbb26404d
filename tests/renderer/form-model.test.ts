import { describe, expect, it } from 'vitest';
import { parseJsonExact, stringifyJsonExact, type JsonObject } from '@shared/json';
import { buildForm } from '../../src/renderer/src/lib/workflow/form-model';
import { applyDrafts, checkDraft, fieldKey, initialDraft, type Draft } from '../../src/renderer/src/lib/workflow/drafts';
import { fieldSpecOf } from '../../src/renderer/src/lib/workflow/input-spec';
import type { NodeClassView, NodeInputView } from '@shared/ipc/contract';
import { randomBigIntInRange } from '../../src/renderer/src/lib/workflow/exact';
import { nodeClass } from './node-class';

const classes: Record<string, NodeClassView> = {
  DemoSampler: nodeClass('DemoSampler', 'Demo Sampler', [
    { name: 'model', required: true, kind: 'link', type: 'MODEL' },
    { name: 'seed', required: true, kind: 'int', type: 'INT', default: 0, min: 0, max: { bigint: '18446744073709551615' } },
    { name: 'steps', required: true, kind: 'int', type: 'INT', default: 8, min: 1, max: 100, step: 1 },
    { name: 'cfg', required: true, kind: 'float', type: 'FLOAT', default: 7.5, min: 0, max: 30, step: 0.5 },
    { name: 'sampler', required: true, kind: 'combo', type: 'COMBO', options: ['euler', 'ddim'], default: 'euler' },
    { name: 'scheduler', required: true, kind: 'combo', type: 'COMBO', options: ['normal', 'karras'], default: 'normal' },
    { name: 'prompt', required: false, kind: 'string', type: 'STRING', multiline: true, default: '' },
    { name: 'tiled', required: false, kind: 'boolean', type: 'BOOLEAN', default: false },
    { name: 'mask', required: false, kind: 'link', type: 'MASK' },
  ]),
  LoadImage: nodeClass('LoadImage', '', [{ name: 'image', required: true, kind: 'combo', type: 'COMBO', options: ['a.png'], imageUpload: true }]),
};

function spec(input: Partial<NodeInputView> & Pick<NodeInputView, 'name' | 'kind'>) {
  return fieldSpecOf({ required: true, type: 'X', ...input });
}

const workflow = parseJsonExact(`{
  "10": {"class_type": "LoadImage", "inputs": {"image": "a.png"}},
  "3": {"class_type": "DemoSampler", "inputs": {"model": ["4", 0], "seed": 18446744073709551615, "steps": 8, "cfg": 7.5,
        "sampler": "euler", "scheduler": "karras", "prompt": "a cat", "extra": 5}},
  "4": {"class_type": "NoSuchNode", "inputs": {"x": 1}}
}`) as JsonObject;

describe('form model', () => {
  const groups = buildForm(workflow, classes);

  it('orders nodes numerically and names them by display name, marking unknown classes', () => {
    expect(groups.map((g) => `${g.id} ${g.displayName} ${g.known}`)).toEqual(['3 Demo Sampler true', '4 NoSuchNode false', '10 LoadImage true']);
  });

  it('lists inputs in definition order, shows links read-only, skips unconnected optional links, keeps extra inputs', () => {
    const sampler = groups[0]!;
    expect(sampler.fields.map((f) => f.name)).toEqual(['model', 'seed', 'steps', 'cfg', 'sampler', 'scheduler', 'prompt', 'tiled', 'extra']);
    expect(sampler.fields[0]!.source).toEqual({ kind: 'link', from: '4', output: 0 });
    // An input the definition does not mention is edited from its own value.
    expect(sampler.fields.find((f) => f.name === 'extra')).toMatchObject({ spec: { kind: 'int', min: null, max: null }, inferred: true });
  });

  it("without definitions (a serverless deployment), edits inputs from the workflow's own values and types", () => {
    const bare = parseJsonExact(`{
      "1": {"class_type": "LoadImage", "inputs": {"image": "core/ASSET:5b1c"}},
      "3": {"class_type": "DemoSampler", "inputs": {"model": ["4", 0], "seed": 18446744073709551615, "steps": 8, "cfg": 7.5,
            "prompt": "a cat\\nin a hat", "name": "x", "tiled": true, "sizes": [1, 2], "photo": "cat.PNG"}}
    }`) as JsonObject;
    const fields = buildForm(bare, null).flatMap((g) => g.fields);
    const of = (name: string) => fields.find((f) => f.name === name)!;
    expect(of('model')).toMatchObject({ spec: null, source: { kind: 'link', from: '4', output: 0 } });
    expect(of('seed').spec).toMatchObject({ kind: 'int', seed: true });
    expect(of('steps').spec).toMatchObject({ kind: 'int', seed: false });
    expect(of('cfg').spec).toMatchObject({ kind: 'float' });
    expect(of('prompt').spec).toEqual({ kind: 'string', multiline: true, default: null });
    expect(of('name').spec).toEqual({ kind: 'string', multiline: false, default: null });
    expect(of('tiled').spec).toMatchObject({ kind: 'boolean' });
    expect(of('sizes').spec).toBeNull();
    expect(of('image').spec).toMatchObject({ kind: 'combo', imageUpload: true, options: ['core/ASSET:5b1c'] });
    expect(of('photo').spec).toMatchObject({ kind: 'combo', imageUpload: true });
    expect(fields.every((f) => f.spec === null || f.inferred === true)).toBe(true);
    // Edited values keep their types; a decimal in an integer field is refused before sending.
    const drafts = new Map<string, Draft>([
      [fieldKey('3', 'steps'), '12'],
      [fieldKey('3', 'cfg'), '6.5'],
      [fieldKey('3', 'tiled'), false],
    ]);
    const { workflow: out, problems } = applyDrafts(bare, fields, drafts);
    expect(problems).toEqual([]);
    expect(stringifyJsonExact(out)).toContain('"steps":12,"cfg":6.5');
    expect(stringifyJsonExact(out)).toContain('"seed":18446744073709551615');
    expect(stringifyJsonExact(out)).toContain('"tiled":false');
    expect(stringifyJsonExact(out)).toContain('"sizes":[1,2]');
    expect(applyDrafts(bare, fields, new Map([[fieldKey('3', 'steps'), '1.5']])).problems).toEqual([
      { nodeId: '3', input: 'steps', message: 'Enter a whole number.' },
    ]);
  });

  it("keeps the definitions' help where they exist, beside inputs they do not mention", () => {
    const helped = {
      DemoSampler: nodeClass('DemoSampler', 'Demo Sampler', [
        { name: 'steps', required: true, kind: 'int', type: 'INT', min: 1, max: 100, tooltip: 'How many steps' },
      ]),
    };
    const fields = buildForm(parseJsonExact('{"3": {"class_type": "DemoSampler", "inputs": {"steps": 8, "cfg": 7.5}}}') as JsonObject, helped)[0]!.fields;
    expect(fields[0]).toMatchObject({ name: 'steps', tooltip: 'How many steps', spec: { kind: 'int', min: 1n, max: 100n } });
    expect(fields[0]!.inferred).toBeUndefined();
    expect(fields[1]).toMatchObject({ name: 'cfg', spec: { kind: 'float' }, inferred: true });
  });

  it('maps every widget kind, exact integer bounds and the image upload flag', () => {
    expect(spec({ name: 'seed', kind: 'int', min: 0, max: { bigint: '18446744073709551615' } })).toMatchObject({
      kind: 'int',
      seed: true,
      max: 18446744073709551615n,
    });
    expect(spec({ name: 'noise_seed', kind: 'int' })).toMatchObject({ seed: true });
    expect(spec({ name: 'steps', kind: 'int', default: 4 })).toMatchObject({ seed: false, default: 4n });
    expect(spec({ name: 's', kind: 'combo', options: ['a', 2] })).toMatchObject({ kind: 'combo', options: ['a', '2'] });
    expect(spec({ name: 't', kind: 'string', multiline: true })).toMatchObject({ kind: 'string', multiline: true });
    expect(spec({ name: 'image', kind: 'combo', imageUpload: true })).toMatchObject({ kind: 'combo', imageUpload: true });
    expect(spec({ name: 'm', kind: 'link', type: 'MODEL' })).toEqual({ kind: 'connection', type: 'MODEL' });
  });

  it('keeps a seed of 2^64-1 exact from file to draft to workflow', () => {
    const seed = groups[0]!.fields.find((f) => f.name === 'seed')!;
    expect(initialDraft(seed)).toBe('18446744073709551615');
    const drafts = new Map<string, Draft>([[fieldKey('3', 'seed'), '18446744073709551614']]);
    const { workflow: out, problems } = applyDrafts(
      workflow,
      groups.flatMap((g) => g.fields),
      drafts,
    );
    expect(problems).toEqual([]);
    expect(stringifyJsonExact(out)).toContain('"seed":18446744073709551614');
    expect(stringifyJsonExact(out)).toContain('"model":["4",0]');
    // The original is untouched.
    expect(stringifyJsonExact(workflow)).toContain('"seed":18446744073709551615');
  });

  it('reports values outside the range, non-integers and unknown choices before submitting', () => {
    const steps = spec({ name: 'steps', kind: 'int', min: 1, max: 100 });
    expect(checkDraft(steps, '0')).toMatch(/smallest allowed value is 1/);
    expect(checkDraft(steps, '101')).toMatch(/largest/);
    expect(checkDraft(steps, '1.5')).toMatch(/whole number/);
    expect(checkDraft(steps, '50')).toBeNull();
    const seed = spec({ name: 'seed', kind: 'int', min: 0, max: { bigint: '18446744073709551615' } });
    expect(checkDraft(seed, '18446744073709551616')).toMatch(/largest/);
    expect(checkDraft(spec({ name: 's', kind: 'combo', options: ['a', 'b'] }), 'c')).toMatch(/not one of/);
    const drafts = new Map<string, Draft>([[fieldKey('3', 'steps'), '0']]);
    const { problems } = applyDrafts(
      workflow,
      groups.flatMap((g) => g.fields),
      drafts,
    );
    expect(problems).toEqual([{ nodeId: '3', input: 'steps', message: 'The smallest allowed value is 1.' }]);
  });

  it('draws random seeds inside the range, including ranges beyond 2^53', () => {
    let counter = 0;
    const fill = (bytes: Uint8Array) => bytes.forEach((_, i) => (bytes[i] = (counter++ * 97) & 0xff));
    for (let i = 0; i < 50; i += 1) {
      const n = randomBigIntInRange(0n, 18446744073709551615n, fill);
      expect(n >= 0n && n <= 18446744073709551615n).toBe(true);
      const small = randomBigIntInRange(5n, 7n, fill);
      expect(small >= 5n && small <= 7n).toBe(true);
    }
  });
});

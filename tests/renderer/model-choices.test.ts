// The searchable picker's logic (issue 21, "model and LoRA pickers with search"): which inputs get
// it, how a model file is shown, filtering by every typed word, grouping by sub-folder, and the
// arrow keys' steps.
import { describe, expect, it } from 'vitest';
import {
  choiceParts,
  firstChoices,
  flatChoices,
  groupChoices,
  isModelChoice,
  matchesQuery,
  stepIndex,
  wantsSearchPicker,
} from '../../src/renderer/src/lib/workflow/model-choices';

const CHECKPOINTS = [
  'v1-5-pruned-emaonly.safetensors',
  'SDXL/sd_xl_base_1.0.safetensors',
  'SDXL/juggernautXL_v9.safetensors',
  'Flux\\flux1-dev-fp8.safetensors',
  'SD15/dreamshaper_8.ckpt',
  'animagine.safetensors',
];

describe('which inputs get the searchable picker', () => {
  it('knows model inputs by name, whatever their options', () => {
    for (const name of [
      'ckpt_name',
      'lora_name',
      'lora_name_2',
      'vae_name',
      'unet_name',
      'clip_name',
      'clip_name1',
      'control_net_name',
      'upscale_model_name',
      'model_name',
      'style_model_name',
    ])
      expect(isModelChoice(name, []), name).toBe(true);
    for (const name of ['sampler_name', 'scheduler', 'fill', 'weight_dtype', 'image']) expect(isModelChoice(name, ['a', 'b']), name).toBe(false);
  });

  it('knows model inputs by their options being model files', () => {
    expect(isModelChoice('base', ['a.safetensors', 'b.gguf', 'c.txt'])).toBe(true);
    expect(isModelChoice('base', ['a.png', 'b.jpg', 'c.safetensors'])).toBe(false);
  });

  it('keeps short plain lists as selects and takes over long ones', () => {
    expect(wantsSearchPicker('sampler_name', ['euler', 'dpmpp_2m', 'ddim'])).toBe(false);
    const long = Array.from({ length: 13 }, (_, i) => `sampler_${i}`);
    expect(wantsSearchPicker('sampler_name', long.slice(0, 12))).toBe(false);
    expect(wantsSearchPicker('sampler_name', long)).toBe(true);
    expect(wantsSearchPicker('ckpt_name', ['one.safetensors'])).toBe(true);
  });
});

describe('how a choice is shown', () => {
  it('takes the sub-folder apart and the model extension off', () => {
    expect(choiceParts('SDXL/sd_xl_base_1.0.safetensors')).toEqual({
      value: 'SDXL/sd_xl_base_1.0.safetensors',
      folder: 'SDXL',
      name: 'sd_xl_base_1.0',
      extension: '.safetensors',
    });
    expect(choiceParts('Flux\\dev\\flux1.gguf')).toMatchObject({ folder: 'Flux/dev', name: 'flux1', extension: '.gguf' });
  });

  it('leaves names that are not model files whole', () => {
    expect(choiceParts('dpmpp_2m')).toEqual({ value: 'dpmpp_2m', folder: '', name: 'dpmpp_2m', extension: '' });
    expect(choiceParts('photo.v2.png')).toMatchObject({ name: 'photo.v2.png', extension: '' });
    // A file called only ".safetensors" keeps its name rather than becoming empty.
    expect(choiceParts('.safetensors')).toMatchObject({ name: '.safetensors', extension: '' });
  });
});

describe('filtering and grouping', () => {
  it('matches every word typed, in any order and case, across separators', () => {
    expect(matchesQuery('SDXL/sd_xl_base_1.0.safetensors', 'base sdxl')).toBe(true);
    expect(matchesQuery('SDXL/sd_xl_base_1.0.safetensors', 'XL BASE')).toBe(true);
    expect(matchesQuery('SDXL/sd_xl_base_1.0.safetensors', 'base flux')).toBe(false);
    expect(matchesQuery('anything', '   ')).toBe(true);
  });

  it('groups by sub-folder: the top folder first, then folders alphabetically, server order inside', () => {
    const groups = groupChoices(CHECKPOINTS);
    expect(groups.map((g) => g.folder)).toEqual(['', 'Flux', 'SD15', 'SDXL']);
    expect(groups[0]!.choices.map((c) => c.name)).toEqual(['v1-5-pruned-emaonly', 'animagine']);
    expect(groups[3]!.choices.map((c) => c.value)).toEqual(['SDXL/sd_xl_base_1.0.safetensors', 'SDXL/juggernautXL_v9.safetensors']);
    expect(flatChoices(groups)).toHaveLength(CHECKPOINTS.length);
  });

  it('drops the groups with no match and keeps exact values', () => {
    const groups = groupChoices(CHECKPOINTS, 'xl');
    expect(groups.map((g) => g.folder)).toEqual(['SDXL']);
    expect(flatChoices(groupChoices(CHECKPOINTS, 'flux')).map((c) => c.value)).toEqual(['Flux\\flux1-dev-fp8.safetensors']);
    expect(groupChoices(CHECKPOINTS, 'nothing like it')).toEqual([]);
  });
});

describe('very long lists', () => {
  it('draw the first matches only, across groups, and say how many were left out', () => {
    const all = groupChoices(CHECKPOINTS);
    const { groups, hidden } = firstChoices(all, 3);
    expect(flatChoices(groups).map((c) => c.value)).toEqual(['v1-5-pruned-emaonly.safetensors', 'animagine.safetensors', 'Flux\\flux1-dev-fp8.safetensors']);
    expect(groups.map((g) => g.folder)).toEqual(['', 'Flux']);
    expect(hidden).toBe(3);
    expect(firstChoices(all, 100)).toEqual({ groups: all, hidden: 0 });
  });
});

describe('arrow keys', () => {
  it('step within the list and stop at its ends', () => {
    expect(stepIndex(-1, 5, 'ArrowDown')).toBe(0);
    expect(stepIndex(-1, 5, 'ArrowUp')).toBe(4);
    expect(stepIndex(4, 5, 'ArrowDown')).toBe(4);
    expect(stepIndex(0, 5, 'ArrowUp')).toBe(0);
    expect(stepIndex(1, 20, 'PageDown')).toBe(9);
    expect(stepIndex(3, 20, 'PageUp')).toBe(0);
    expect(stepIndex(2, 5, 'End')).toBe(4);
    expect(stepIndex(2, 0, 'ArrowDown')).toBe(-1);
  });
});

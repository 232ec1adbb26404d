// The proposed app (a workflow without linearData): the inputs people change come first, grouped
// by kind, and a model input is whatever the form shows with the model picker.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@shared/json';
import type { NodeClassView } from '@shared/ipc/contract';
import { buildForm } from '../../src/renderer/src/lib/workflow/form-model';
import { proposeApp } from '../../src/renderer/src/lib/workflow/app-inputs';
import { nodeClass } from './node-class';

const classes: Record<string, NodeClassView> = {
  Loader: nodeClass('Loader', 'Loader', [
    { name: 'weights', required: true, kind: 'combo', type: 'COMBO', options: ['SDXL/base.safetensors', 'sd15.ckpt', 'other.pt'] },
    { name: 'mode', required: true, kind: 'combo', type: 'COMBO', options: ['fast', 'slow'] },
  ]),
  Sampler: nodeClass('Sampler', 'Sampler', [
    { name: 'model', required: true, kind: 'link', type: 'MODEL' },
    { name: 'seed', required: true, kind: 'int', type: 'INT', default: 0, min: 0, max: 100 },
    { name: 'steps', required: true, kind: 'int', type: 'INT', default: 8, min: 1, max: 100 },
    { name: 'text', required: true, kind: 'string', type: 'STRING', multiline: true },
    { name: 'ckpt_name', required: true, kind: 'combo', type: 'COMBO', options: ['a'] },
  ]),
};

const workflow: JsonObject = {
  '1': { class_type: 'Loader', inputs: { weights: 'sd15.ckpt', mode: 'fast' } },
  '2': { class_type: 'Sampler', inputs: { model: ['1', 0], seed: 5, steps: 8, text: 'a fox', ckpt_name: 'a' } },
};

describe('proposeApp', () => {
  it('puts prompt, seed and steps first, then the models found by name or by their options', () => {
    const picked = proposeApp(buildForm(workflow, classes)).map((i) => `${i.nodeId}.${i.name}`);
    expect(picked).toEqual(['2.text', '2.seed', '2.steps', '1.weights', '2.ckpt_name']);
  });

  it('leaves out a short combo of plain words and every link', () => {
    const picked = proposeApp(buildForm(workflow, classes)).map((i) => i.name);
    expect(picked).not.toContain('mode');
    expect(picked).not.toContain('model');
  });
});

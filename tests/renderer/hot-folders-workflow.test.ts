// The hot folder form's workflow part against the real app core on its built-in demo service: a
// workflow opened with workflow.open becomes exact JSON text (or a plain explanation), and the
// image inputs offered come from the server's real node definitions.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallResult, FlowdeckApi, NodeClassView } from '@shared/ipc/contract';
import { Api } from '../../src/renderer/src/lib/api';
import type { AppCore } from '@main/app/core';
import { demoAppCore } from '../support/demo-core';
import { imageInputsOf, parseWorkflowObject, preferredBind } from '../../src/renderer/src/lib/hotfolders/image-inputs';
import { workflowChoiceFrom } from '../../src/renderer/src/lib/hotfolders/workflow-choice';

const WORKFLOWS = resolve(import.meta.dirname, '../../resources/workflows');

let core: AppCore;
/** The renderer's own client over the core, as the harness and Electron carry it (results checked). */
let api: Api;
let dataDir = '';
let classes: Record<string, NodeClassView>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-hot-ui-'));
  core = demoAppCore(dataDir);
  await core.start();
  const started = core;
  api = new Api({ invoke: (name: string, input?: unknown) => started.invoke(name, input), on: () => () => undefined } as unknown as FlowdeckApi);
  await api.call('renderer.ready');
  classes = (await api.call('nodes.definitions')).classes;
});

afterAll(async () => {
  await core.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

function open(path: string): Promise<CallResult<'workflow.open'>> {
  return api.call('workflow.open', { path });
}

function chosenJson(result: CallResult<'workflow.open'>): string {
  const choice = workflowChoiceFrom(result);
  if (choice.kind !== 'chosen') throw new Error(`not chosen: ${JSON.stringify(choice)}`);
  return choice.workflowJson;
}

describe('image inputs from the demo server', () => {
  it('offers LoadImage.image of the invert workflow as "node · class · input"', async () => {
    const workflow = parseWorkflowObject(chosenJson(await open(join(WORKFLOWS, 'invert-image.json'))));
    expect(workflow).not.toBeNull();
    const choices = imageInputsOf(workflow!, classes);
    expect(choices.map((c) => [c.bind, c.label])).toEqual([['1.image', '1 · LoadImage · image']]);
    expect(preferredBind(choices, '')).toBe('1.image');
  });

  it('finds no image input in text-to-image, and one per LoadImage in order of node id', async () => {
    const textToImage = parseWorkflowObject(chosenJson(await open(join(WORKFLOWS, 'text-to-image.json'))))!;
    expect(imageInputsOf(textToImage, classes)).toEqual([]);
    const two = parseWorkflowObject(
      '{"10": {"class_type": "LoadImage", "inputs": {"image": "b.png"}}, "2": {"class_type": "LoadImage", "inputs": {"image": "a.png"}}, "3": {"class_type": "ImageInvert", "inputs": {"image": ["2", 0]}}}',
    )!;
    const choices = imageInputsOf(two, classes);
    expect(choices.map((c) => c.bind)).toEqual(['2.image', '10.image']);
    // Two choices: nothing is preselected unless the current bind is one of them.
    expect(preferredBind(choices, '')).toBe('');
    expect(preferredBind(choices, '10.image')).toBe('10.image');
    expect(preferredBind(choices, '7.image')).toBe('');
  });

  it('uses the definitions for custom nodes, and still knows LoadImage without definitions', () => {
    const workflow = parseWorkflowObject('{"1": {"class_type": "MyLoader", "inputs": {}}, "2": {"class_type": "LoadImage", "inputs": {}}, "3": "not a node"}')!;
    const custom: Record<string, NodeClassView> = {
      MyLoader: {
        ...classes.LoadImage!,
        name: 'MyLoader',
        inputs: [
          { name: 'picture', required: true, kind: 'combo', type: 'COMBO', imageUpload: true },
          { name: 'note', required: false, kind: 'string', type: 'STRING' },
        ],
      },
    };
    expect(imageInputsOf(workflow, custom).map((c) => c.bind)).toEqual(['1.picture', '2.image']);
    expect(imageInputsOf(workflow, null).map((c) => c.bind)).toEqual(['2.image']);
    expect(parseWorkflowObject('[1, 2]')).toBeNull();
    expect(parseWorkflowObject('{oops')).toBeNull();
  });
});

describe('choosing a workflow file', () => {
  it('keeps the workflow text exact (a seed beyond 2^53) and names the file', async () => {
    const path = join(dataDir, 'big-seed.json');
    writeFileSync(
      path,
      '{"3": {"class_type": "DemoSampler", "inputs": {"seed": 18446744073709551615}}, "1": {"class_type": "LoadImage", "inputs": {"image": "x.png"}}}',
    );
    const choice = workflowChoiceFrom(await open(path));
    expect(choice).toMatchObject({ kind: 'chosen', name: 'big-seed.json', unknownClasses: [] });
    expect(choice.kind === 'chosen' && choice.workflowJson.includes('18446744073709551615')).toBe(true);
  });

  it('lists node classes the server does not know', async () => {
    const path = join(dataDir, 'unknown.json');
    writeFileSync(path, '{"1": {"class_type": "LoadImage", "inputs": {"image": "x.png"}}, "2": {"class_type": "NoSuchNode", "inputs": {}}}');
    expect(workflowChoiceFrom(await open(path))).toMatchObject({ kind: 'chosen', unknownClasses: ['2 (NoSuchNode)'] });
  });

  it('explains a UI-format workflow that cannot be converted, invalid JSON, and a closed dialog', async () => {
    const ui = join(dataDir, 'ui.json');
    writeFileSync(
      ui,
      JSON.stringify({ nodes: [{ id: 1, type: 'NoSuchCustomNode', mode: 0, inputs: [], outputs: [], widgets_values: [7, 'x'] }], links: [], version: 0.4 }),
    );
    expect(workflowChoiceFrom(await open(ui))).toMatchObject({
      kind: 'problem',
      message: expect.stringMatching(/^The UI-format workflow could not be converted: /),
    });
    const broken = join(dataDir, 'broken.json');
    writeFileSync(broken, '{\n  "1": {"class_type": }\n}');
    expect(workflowChoiceFrom(await open(broken))).toMatchObject({
      kind: 'problem',
      message: expect.stringMatching(/^Not valid JSON: .*\(line 2, column \d+\)$/),
    });
    expect(workflowChoiceFrom({ opened: false, name: null, path: null, parse: null })).toEqual({ kind: 'cancelled' });
  });
});

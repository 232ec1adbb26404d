// Model and LoRA pickers with search (issue 21): a loader's file input (ckpt_name, lora_name) is a
// combobox showing the file plainly (name without extension, sub-folder apart, the exact value in
// its title); opening it gives a search field that filters as you type and a listbox grouped by
// sub-folder; the keyboard chooses (arrows, Enter) and Escape leaves it unchanged; the exact value
// goes into the run. A long list (40 samplers) gets the same picker; a short one (schedulers)
// stays a plain select. The server is a real demo service that also defines the editor's loaders.
import type { Page } from '@playwright/test';
import type { JsonObject } from '@shared/json';
import { expect, test } from './fixtures/index';
import { bridgeLog, openWorkflow, recordBridge, runButton, waitConnected } from './ui-helpers';
import { DemoService } from '../src/main/demo';
import type { DemoNode } from '../src/main/demo/node-api';
import { createNodeLibrary } from '../src/main/demo/nodes';
import { loaderDefinition } from '../scripts/model-loaders.mjs';

const CHECKPOINTS = [
  'v1-5-pruned-emaonly.safetensors',
  'SDXL/sd_xl_base_1.0.safetensors',
  'SDXL/juggernautXL_v9.safetensors',
  'SDXL/dreamshaperXL_turbo.safetensors',
  'SD15/dreamshaper_8.ckpt',
  'Flux/flux1-dev-fp8.safetensors',
];
const LORAS = ['add_detail.safetensors', 'styles/pixel-art-xl.safetensors', 'styles/watercolor_v2.safetensors', 'people/detail_eyes.safetensors'];
const SAMPLERS = Array.from({ length: 40 }, (_, i) => (i === 0 ? 'euler' : i === 1 ? 'dpmpp_2m_sde' : `sampler_${String(i).padStart(2, '0')}`));
const SCHEDULERS = ['normal', 'karras', 'exponential', 'simple'];

/** A loader as the real server defines it (legacy combos `[[...], {}]`); it never runs here. */
function loader(name: string, displayName: string, required: JsonObject, outputs: string[]): DemoNode {
  return {
    definition: loaderDefinition(name, displayName, required, outputs),
    run: () => Promise.reject(new Error(`${name} has no models on the demo service.`)),
  };
}

let server: DemoService;

test.beforeAll(async () => {
  const nodes = createNodeLibrary();
  nodes.set('CheckpointLoaderSimple', loader('CheckpointLoaderSimple', 'Load Checkpoint', { ckpt_name: [CHECKPOINTS, {}] }, ['MODEL', 'CLIP', 'VAE']));
  nodes.set(
    'LoraLoader',
    loader(
      'LoraLoader',
      'Load LoRA',
      { model: ['MODEL', {}], clip: ['CLIP', {}], lora_name: [LORAS, {}], strength_model: ['FLOAT', { default: 1, min: -100, max: 100, step: 0.01 }] },
      ['MODEL', 'CLIP'],
    ),
  );
  nodes.set('KSamplerLite', loader('KSamplerLite', 'Sampler', { model: ['MODEL', {}], sampler_name: [SAMPLERS, {}], scheduler: [SCHEDULERS, {}] }, ['LATENT']));
  server = new DemoService({ flavour: 'local', host: '127.0.0.1', port: 0, timeScale: 0.05, nodes });
  await server.start();
});

test.afterAll(async () => {
  await server?.stop();
});

const WORKFLOW = {
  name: 'loaders.json',
  text: JSON.stringify({
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'SDXL/sd_xl_base_1.0.safetensors' } },
    '10': { class_type: 'LoraLoader', inputs: { model: ['4', 0], clip: ['4', 1], lora_name: 'add_detail.safetensors', strength_model: 1 } },
    '3': { class_type: 'KSamplerLite', inputs: { model: ['10', 0], sampler_name: 'euler', scheduler: 'normal' } },
  }),
};

/** Makes the loaders' server the active one (through the app's own call) and opens the workflow. */
async function openOnLoaderServer(page: Page): Promise<void> {
  const saved = await page.evaluate(
    (url) =>
      (window as unknown as { flowdeck: { invoke(n: string, i: unknown): Promise<{ ok: boolean }> } }).flowdeck.invoke('profiles.save', {
        name: 'Model server',
        kind: 'local',
        baseUrl: url,
        select: true,
      }),
    server.url,
  );
  expect(saved.ok).toBe(true);
  await page.reload();
  await waitConnected(page);
  await openWorkflow(page, WORKFLOW);
}

test('a checkpoint picker: plain name, search, groups by folder, keyboard, exact value in the run', async ({ appPage: page }) => {
  await recordBridge(page);
  await openOnLoaderServer(page);
  const loaderGroup = page.getByRole('group', { name: '4 CheckpointLoaderSimple' });
  const picker = loaderGroup.getByRole('combobox', { name: 'ckpt_name' });

  // Closed: the file name without its extension, the folder apart; the exact value in the title.
  await expect(picker).toHaveText(/^\s*SDXL\/\s*sd_xl_base_1\.0\s*▾?\s*$/);
  await expect(picker).toHaveAttribute('title', 'SDXL/sd_xl_base_1.0.safetensors');
  await expect(picker).toHaveAttribute('aria-expanded', 'false');

  // Open: a search field with the focus, the list grouped by sub-folder (top folder first).
  await picker.click();
  await expect(picker).toHaveAttribute('aria-expanded', 'true');
  const search = loaderGroup.getByRole('searchbox', { name: 'Search ckpt_name' });
  await expect(search).toBeFocused();
  const list = loaderGroup.getByRole('listbox', { name: 'ckpt_name' });
  await expect(list.getByRole('group')).toHaveText([/v1-5-pruned-emaonly/, /^Flux/, /^SD15/, /^SDXL/]);
  await expect(list.getByRole('group', { name: 'SDXL' }).getByRole('option')).toHaveCount(3);
  await expect(list.getByRole('option', { selected: true })).toHaveAttribute('title', 'SDXL/sd_xl_base_1.0.safetensors');

  // Typing filters (every word, any order): one match, Enter takes it and closes.
  await search.fill('jugger xl');
  await expect(list.getByRole('option')).toHaveCount(1);
  await expect(loaderGroup.getByRole('status')).toHaveText('1 of 6');
  await search.press('Enter');
  await expect(list).toBeHidden();
  await expect(picker).toBeFocused();
  await expect(picker).toHaveAttribute('title', 'SDXL/juggernautXL_v9.safetensors');

  // The keyboard from the closed picker: typing opens the search with that letter; arrows move.
  await picker.press('d');
  await expect(search).toHaveValue('d');
  await search.fill('dreamshaper');
  const options = list.getByRole('option');
  await expect(options).toHaveCount(2);
  // SD15 sorts before SDXL; the first match is active, the arrow moves to the second.
  await expect(search).toHaveAttribute('aria-activedescendant', (await options.nth(0).getAttribute('id'))!);
  await search.press('ArrowDown');
  await expect(search).toHaveAttribute('aria-activedescendant', (await options.nth(1).getAttribute('id'))!);
  await search.press('Enter');
  await expect(picker).toHaveAttribute('title', 'SDXL/dreamshaperXL_turbo.safetensors');

  // Escape leaves the choice as it was; no match says so.
  await picker.press('ArrowDown');
  await search.fill('nothing like this');
  await expect(loaderGroup.getByText('No choice matches “nothing like this”.')).toBeVisible();
  await search.press('Escape');
  await expect(list).toBeHidden();
  await expect(picker).toBeFocused();
  await expect(picker).toHaveAttribute('title', 'SDXL/dreamshaperXL_turbo.safetensors');

  // The mouse: a LoRA in a sub-folder, clicked.
  const lora = page.getByRole('group', { name: '10 LoraLoader' }).getByRole('combobox', { name: 'lora_name' });
  await expect(lora).toHaveText(/add_detail/);
  await lora.click();
  await page
    .getByRole('listbox', { name: 'lora_name' })
    .getByRole('group', { name: 'styles' })
    .getByRole('option', { name: /watercolor_v2/ })
    .click();
  await expect(lora).toHaveText(/styles\/\s*watercolor_v2/);

  // A long list (40 samplers) is searchable too; a short one stays a plain select.
  const sampler = page.getByRole('group', { name: '3 KSamplerLite' }).getByRole('combobox', { name: 'sampler_name' });
  await sampler.click();
  await page.getByRole('searchbox', { name: 'Search sampler_name' }).fill('2m sde');
  await page.getByRole('searchbox', { name: 'Search sampler_name' }).press('Enter');
  await expect(sampler).toHaveText(/dpmpp_2m_sde/);
  const scheduler = page.getByRole('group', { name: '3 KSamplerLite' }).getByLabel('scheduler', { exact: true });
  await expect(scheduler).toHaveJSProperty('tagName', 'SELECT');
  await scheduler.selectOption('karras');

  // The exact values go into the submitted workflow.
  await runButton(page).click();
  await expect
    .poll(async () => (await bridgeLog(page)).filter((r) => r.kind === 'call' && r.name === 'run.submit').length, { timeout: 10_000 })
    .toBeGreaterThan(0);
  const submitted = (await bridgeLog(page)).find((r) => r.kind === 'call' && r.name === 'run.submit')!.text;
  const workflow = JSON.parse((JSON.parse(submitted) as { workflowJson: string }).workflowJson) as Record<string, { inputs: Record<string, unknown> }>;
  expect(workflow['4']!.inputs['ckpt_name']).toBe('SDXL/dreamshaperXL_turbo.safetensors');
  expect(workflow['10']!.inputs['lora_name']).toBe('styles/watercolor_v2.safetensors');
  expect(workflow['3']!.inputs['sampler_name']).toBe('dpmpp_2m_sde');
  expect(workflow['3']!.inputs['scheduler']).toBe('karras');
});

test('a value the server does not have stays, marked, and can still be chosen again', async ({ appPage: page }) => {
  await openOnLoaderServer(page);
  await openWorkflow(page, {
    name: 'missing-model.json',
    text: WORKFLOW.text.replace('SDXL/sd_xl_base_1.0.safetensors', 'SDXL/not_installed.safetensors'),
  });
  const group = page.getByRole('group', { name: '4 CheckpointLoaderSimple' });
  const picker = group.getByRole('combobox', { name: 'ckpt_name' });
  await expect(picker).toContainText('not_installed');
  await expect(picker).toContainText('not on the server');
  await picker.click();
  const list = group.getByRole('listbox', { name: 'ckpt_name' });
  await expect(list.getByRole('option', { selected: true })).toHaveAttribute('title', 'SDXL/not_installed.safetensors');
  await list.getByRole('option', { name: /^v1-5-pruned-emaonly/ }).click();
  await expect(picker).toHaveAttribute('title', 'v1-5-pruned-emaonly.safetensors');
  await expect(picker).not.toContainText('not on the server');
});

// The Run form as an app (issue 21): a workflow opens as a proposed app (the inputs people change,
// under plain names, no node ids, help behind "?", sliders beside exact numbers, size presets with
// an aspect lock, a seed mode); a UI file's extra.linearData opens as its app; "All inputs" shows
// the graph, where inputs are pinned; the arrangement survives opening again in a fresh page (kept
// by the core), and "Save as…" (a download in a browser) writes it into a new file's
// extra.linearData for the editor and a fresh window. Saving into the file on disk, and a fresh
// core: app-save.spec.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { ROOT } from './fixtures/harness';
import { expect, test } from './fixtures/index';
import { openWorkflow, runButton, TEXT_TO_IMAGE, waitConnected } from './ui-helpers';

test.use({ graphForm: false });

/** The labels of the app's inputs, in order. */
function appLabels(page: Page): Promise<string[]> {
  return page.getByRole('group', { name: 'App inputs' }).locator('.row > .head > label').allInnerTexts();
}

/** The UI-format Demo Sampler workflow with an app of its own (steps, then the prompt). */
function appFile(): { name: string; text: string } {
  const graph = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/ui-demo-sampler.json'), 'utf8')) as Record<string, unknown>;
  graph['extra'] = {
    linearMode: true,
    linearData: {
      inputs: [
        [3, 'steps', {}],
        [3, 'prompt', {}],
      ],
      outputs: [9],
    },
  };
  return { name: 'lighthouse.app.json', text: JSON.stringify(graph) };
}

test('a workflow opens as a proposed app that speaks plainly', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, TEXT_TO_IMAGE);
  const app = page.getByRole('group', { name: 'App inputs' });
  await expect(page.getByRole('switch', { name: 'All inputs' })).not.toBeChecked();
  await expect.poll(() => appLabels(page)).toEqual(['Prompt', 'Seed', 'Steps', 'CFG', 'Width', 'Height', 'Sampler']);
  // Node ids and class names never show in the app; the rest of the graph is under All inputs.
  await expect(app).not.toContainText('DemoSampler');
  await expect(app).not.toContainText('Demo Sampler');
  await expect(page.getByRole('group', { name: '3 DemoSampler' })).toHaveCount(0);

  // Help from the node definition behind "?".
  await app.getByRole('button', { name: 'What Steps does' }).click();
  await expect(app.getByText('Number of refinement steps; each sends progress and a preview.')).toBeVisible();
  // A bounded number has a slider and the exact number; a seed keeps every digit.
  const steps = app.getByLabel('Steps', { exact: true });
  await app.getByLabel('Steps (slider)').fill('20');
  await expect(steps).toHaveValue('20');
  const seed = app.getByLabel('Seed', { exact: true });
  await seed.fill('18446744073709551615');
  await expect(seed).toHaveValue('18446744073709551615');
  await expect(app.getByLabel('Seed (slider)')).toHaveCount(0);

  // Size presets, and the aspect lock keeps the proportion.
  await app.getByLabel('Size preset').selectOption('512x768');
  await expect(app.getByLabel('Width', { exact: true })).toHaveValue('512');
  await expect(app.getByLabel('Height', { exact: true })).toHaveValue('768');
  await app.getByRole('checkbox', { name: 'Keep aspect ratio' }).check();
  await app.getByLabel('Width', { exact: true }).fill('256');
  await expect(app.getByLabel('Height', { exact: true })).toHaveValue('384');

  // Seed mode "+1": after a run the seed is the next one (from 2^64-1 it wraps to the minimum, exactly).
  await seed.fill('41');
  await app.getByLabel('Seed mode').selectOption('increment');
  await runButton(page).click();
  await expect(seed).toHaveValue('42', { timeout: 15_000 });
});

test('a UI file with extra.linearData opens as its app; a pinned input survives a fresh app and the saved file', async ({
  appPage: page,
  browser,
  harness,
  pageErrors,
}) => {
  await waitConnected(page);
  await openWorkflow(page, appFile());
  await expect(page.getByText('The app saved in this file.')).toBeVisible();
  await expect.poll(() => appLabels(page)).toEqual(['Steps', 'Prompt']);

  // Pin cfg under All inputs; the app shows it after the others.
  const allInputs = page.getByRole('switch', { name: 'All inputs' });
  await allInputs.check();
  const pin = page.getByRole('button', { name: 'Pin cfg of node 3 to the app' });
  await expect(pin).toHaveAttribute('aria-pressed', 'false');
  await pin.click();
  await expect(pin).toHaveAttribute('aria-pressed', 'true');
  await allInputs.uncheck();
  await expect.poll(() => appLabels(page)).toEqual(['Steps', 'Prompt', 'CFG']);
  // Reordered: the prompt first.
  await page.getByRole('group', { name: 'App inputs' }).getByRole('button', { name: 'Move Prompt up' }).click();
  await expect.poll(() => appLabels(page)).toEqual(['Prompt', 'Steps', 'CFG']);

  // A fresh page opens the same file as the arranged app, kept by the core (not yet in a file).
  await page.reload();
  await waitConnected(page);
  await openWorkflow(page, appFile());
  await expect(page.getByText('Your app for this workflow, kept by Flowdeck. Save as… puts it in a file the editor opens.')).toBeVisible();
  await expect.poll(() => appLabels(page)).toEqual(['Prompt', 'Steps', 'CFG']);

  // "Save as…" (no save dialog in a browser: a download): the app in the file's extra.linearData, as the editor keeps it.
  await expect(page.getByRole('button', { name: 'Save app', exact: true })).toHaveCount(0);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Save as…' }).click();
  const saved = await download;
  expect(saved.suggestedFilename()).toBe('lighthouse.app.json');
  const text = readFileSync((await saved.path())!, 'utf8');
  const graph = JSON.parse(text) as { extra: { linearMode: boolean; linearData: { inputs: unknown[]; outputs: unknown[] } } };
  expect(graph.extra.linearMode).toBe(true);
  expect(graph.extra.linearData.inputs).toEqual([
    [3, 'prompt', {}],
    [3, 'steps', {}],
    [3, 'cfg', {}],
  ]);
  expect(graph.extra.linearData.outputs).toEqual([9]);

  // A window that never saw this workflow opens the saved file as that app.
  const context = await browser.newContext();
  pageErrors.watch(context);
  try {
    const fresh = await context.newPage();
    await fresh.goto(harness.url);
    await waitConnected(fresh);
    await openWorkflow(fresh, { name: 'lighthouse.app.json', text });
    await expect(fresh.getByText('The app saved in this file.')).toBeVisible();
    await expect.poll(() => appLabels(fresh)).toEqual(['Prompt', 'Steps', 'CFG']);
  } finally {
    await context.close();
  }
});

/** The UI Demo Sampler workflow saving twice (node 9 "FromUi", node 10 "Chosen"), its app listing node 10's output only. */
function twoOutputsApp(): { name: string; text: string } {
  const graph = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/ui-demo-sampler.json'), 'utf8')) as {
    nodes: { id: number; outputs: { links: number[] }[] }[];
    links: unknown[];
    [key: string]: unknown;
  };
  graph.nodes[0]!.outputs[0]!.links = [1, 2];
  graph.nodes.push({
    id: 10,
    type: 'SaveImage',
    pos: [420, 360],
    size: [300, 270],
    flags: {},
    order: 2,
    mode: 0,
    inputs: [{ name: 'images', type: 'IMAGE', link: 2 }],
    outputs: [],
    title: 'Save Chosen',
    properties: { 'Node name for S&R': 'SaveImage' },
    widgets_values: ['Chosen'],
  } as unknown as { id: number; outputs: { links: number[] }[] });
  graph.links.push([2, 3, 0, 10, 0, 'IMAGE']);
  graph['last_node_id'] = 10;
  graph['last_link_id'] = 2;
  graph['extra'] = { linearMode: true, linearData: { inputs: [[3, 'prompt', {}]], outputs: [10] } };
  return { name: 'two-saves.app.json', text: JSON.stringify(graph) };
}

test('the stage shows just the outputs the app lists; All outputs shows the rest', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, twoOutputsApp());
  await expect(page.getByText('The app saved in this file.')).toBeVisible();
  await runButton(page).click();
  const stage = page.getByRole('region', { name: 'Result' });
  await expect(stage.getByRole('img', { name: /^Result Chosen.*\.png$/ })).toBeVisible({ timeout: 20_000 });
  await expect(stage.getByRole('img', { name: /^Result FromUi/ })).toHaveCount(0);
  const strip = page.getByRole('list', { name: "This session's outputs" });
  await expect(strip.getByRole('button', { name: /^Show Chosen.*\.png on the stage$/ })).toHaveCount(1);
  await expect(strip.getByRole('button', { name: /^Show FromUi/ })).toHaveCount(0);

  // "All outputs": both saves, as a small grid, and in the strip.
  await stage.getByRole('switch', { name: 'All outputs' }).check();
  const grid = stage.getByRole('list', { name: 'Outputs of this job' });
  await expect(grid.getByRole('img', { name: /^Result FromUi.*\.png$/ })).toBeVisible();
  await expect(grid.getByRole('img', { name: /^Result Chosen.*\.png$/ })).toBeVisible();
  await expect(strip.getByRole('button', { name: /^Show FromUi.*\.png on the stage$/ })).toHaveCount(1);
  await stage.getByRole('switch', { name: 'All outputs' }).uncheck();
  await expect(stage.getByRole('img', { name: /^Result FromUi/ })).toHaveCount(0);
});

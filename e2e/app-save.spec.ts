// The form as an app, saved (issue 21): a pinned input survives saving and opening again in a
// fresh app (a new core over the data folder, a new browser context) for an API file, whose app
// Flowdeck keeps beside it in its own store, and for a UI file opened from disk, whose app "Save
// app" writes into the file's extra.linearData (the rest of the file kept byte for byte), refused
// with a plain message when the file changed on disk since it was opened. An app the version
// before kept in the window's storage is carried over to Flowdeck's store on first open.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { ROOT, startHarness, type RunningHarness } from './fixtures/harness';
import { expect, test, type PageErrorWatch } from './fixtures/index';
import type { JsonObject } from '../src/shared/json';
import { workflowShape } from '../src/renderer/src/lib/workflow/app-store';
import { TEXT_TO_IMAGE, waitConnected } from './ui-helpers';

test.use({ graphForm: false });

function appLabels(page: Page): Promise<string[]> {
  return page.getByRole('group', { name: 'App inputs' }).locator('.row > .head > label').allInnerTexts();
}

/** A page in a context of its own (nothing kept in the browser) on a harness. */
async function freshPage(browser: Browser, harness: RunningHarness, errors: PageErrorWatch): Promise<Page> {
  const context = await browser.newContext();
  errors.watch(context);
  const page = await context.newPage();
  await page.goto(harness.url);
  await waitConnected(page);
  return page;
}

/** Opens a file from disk as the desktop app's dialog would: by path, then from the recent list. */
async function openFromDisk(page: Page, path: string, name: string): Promise<void> {
  const opened = await page.evaluate((p) => window.flowdeck.invoke('workflow.open', { path: p }), path);
  expect(opened.ok).toBe(true);
  await page.reload();
  await waitConnected(page);
  await page.getByRole('link', { name: 'Run', exact: true }).click();
  await page.getByRole('navigation', { name: 'Recent workflows' }).getByRole('button', { name }).click();
  await expect(page.getByText(`Open: ${name}`)).toBeVisible();
}

async function pin(page: Page, input: string, node: string): Promise<void> {
  const allInputs = page.getByRole('switch', { name: 'All inputs' });
  await allInputs.check();
  const button = page.getByRole('button', { name: `Pin ${input} of node ${node} to the app` });
  await expect(button).toHaveAttribute('aria-pressed', 'false');
  await button.click();
  await expect(button).toHaveAttribute('aria-pressed', 'true');
  await allInputs.uncheck();
}

test.describe('a pinned input survives saving and opening again in a fresh app', () => {
  let work: string;
  let harness: RunningHarness | null = null;
  test.beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'flowdeck-e2e-app-'));
  });
  test.afterEach(async () => {
    await harness?.stop();
    harness = null;
    rmSync(work, { recursive: true, force: true });
  });

  test('an API file: kept by Flowdeck beside it', async ({ browser, pageErrors }) => {
    const dataDir = join(work, 'data');
    const file = join(work, 'portrait.json');
    writeFileSync(file, readFileSync(TEXT_TO_IMAGE));
    harness = await startHarness({ dataDir });
    let page = await freshPage(browser, harness, pageErrors);
    await openFromDisk(page, file, 'portrait.json');
    await expect(page.getByText('A proposed app: pin more under All inputs.')).toBeVisible();
    await pin(page, 'filename_prefix', '9');
    await expect(page.getByText('Your app for this workflow, kept by Flowdeck.')).toBeVisible();
    await expect.poll(() => appLabels(page)).toEqual(['Prompt', 'Seed', 'Steps', 'CFG', 'Width', 'Height', 'Sampler', 'File name prefix']);
    // An API file has no place for an app: nothing to save into it, nothing to save as.
    await expect(page.getByRole('button', { name: 'Save app', exact: true })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Save as…' })).toHaveCount(0);
    // Kept at once in the core's store; the file itself is untouched.
    await expect.poll(() => readFileSync(join(dataDir, 'apps.json'), 'utf8')).toContain('filename_prefix');
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(TEXT_TO_IMAGE, 'utf8'));

    // A fresh app: a new core over the same data folder, a browser context that never saw the workflow.
    await page.context().close();
    await harness.stop();
    harness = await startHarness({ dataDir });
    page = await freshPage(browser, harness, pageErrors);
    await openFromDisk(page, file, 'portrait.json');
    await expect(page.getByText('Your app for this workflow, kept by Flowdeck.')).toBeVisible();
    await expect.poll(() => appLabels(page)).toEqual(['Prompt', 'Seed', 'Steps', 'CFG', 'Width', 'Height', 'Sampler', 'File name prefix']);
    await page.context().close();
  });

  test('an app the earlier version kept in the window is carried over to Flowdeck once', async ({ browser, pageErrors }) => {
    const dataDir = join(work, 'data');
    const file = join(work, 'portrait.json');
    writeFileSync(file, readFileSync(TEXT_TO_IMAGE));
    const workflow = JSON.parse(readFileSync(TEXT_TO_IMAGE, 'utf8')) as JsonObject;
    const legacyKey = `flowdeck.app.${workflowShape(workflow)}`;
    harness = await startHarness({ dataDir });
    let page = await freshPage(browser, harness, pageErrors);
    // What the version before this one wrote when the user pinned two inputs.
    await page.evaluate(([k, v]) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem(k, v), [
      legacyKey,
      JSON.stringify([
        { nodeId: '3', name: 'prompt' },
        { nodeId: '9', name: 'filename_prefix' },
      ]),
    ] as const);
    await openFromDisk(page, file, 'portrait.json');
    await expect(page.getByText('Your app for this workflow, kept by Flowdeck.')).toBeVisible();
    await expect.poll(() => appLabels(page)).toEqual(['Prompt', 'File name prefix']);
    await expect.poll(() => readFileSync(join(dataDir, 'apps.json'), 'utf8')).toContain('filename_prefix');
    await expect
      .poll(() => page.evaluate((k) => (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem(k), legacyKey))
      .toBeNull();

    // A fresh core and a browser that never had the old entry: the app is Flowdeck's now.
    await page.context().close();
    await harness.stop();
    harness = await startHarness({ dataDir });
    page = await freshPage(browser, harness, pageErrors);
    await openFromDisk(page, file, 'portrait.json');
    await expect.poll(() => appLabels(page)).toEqual(['Prompt', 'File name prefix']);
    await page.context().close();
  });

  test('a UI file: saved into its extra.linearData, refused when it changed on disk', async ({ browser, pageErrors }) => {
    const original = readFileSync(join(ROOT, 'tests/fixtures/ui-demo-sampler.json'), 'utf8');
    const file = join(work, 'lighthouse.json');
    writeFileSync(file, original);
    harness = await startHarness({ dataDir: join(work, 'data') });
    let page = await freshPage(browser, harness, pageErrors);
    await openFromDisk(page, file, 'lighthouse.json');
    await pin(page, 'delay_ms', '3');
    await expect(page.getByText('Changes not yet saved in lighthouse.json.')).toBeVisible();
    const labels = await appLabels(page);
    expect(labels.at(-1)).toBe('Delay (ms)');

    await page.getByRole('button', { name: 'Save app', exact: true }).click();
    await expect(page.getByText('The app saved in this file.')).toBeVisible();
    const saved = readFileSync(file, 'utf8');
    const graph = JSON.parse(saved) as { extra: { linearMode: boolean; linearData: { inputs: [number, string, object][] } } };
    expect(graph.extra.linearMode).toBe(true);
    expect(graph.extra.linearData.inputs.map(([id, name]) => `${id}.${name}`).at(-1)).toBe('3.delay_ms');
    // Everything before the extra member is the file as it was, byte for byte.
    const head = original.slice(0, original.indexOf('"extra"'));
    expect(saved.startsWith(head)).toBe(true);
    expect(saved.endsWith('  "version": 0.4\n}\n')).toBe(original.endsWith('  "version": 0.4\n}\n'));

    // Another program changes the file: saving again is refused, and the file keeps its changes.
    const elsewhere = saved.replace('a lighthouse from a UI file', 'edited in the editor');
    writeFileSync(file, elsewhere);
    await page.getByRole('group', { name: 'App inputs' }).getByRole('button', { name: 'Move Delay (ms) up' }).click();
    await page.getByRole('button', { name: 'Save app', exact: true }).click();
    await expect(page.getByText(/lighthouse\.json changed on disk since it was opened/)).toBeVisible();
    expect(readFileSync(file, 'utf8')).toBe(elsewhere);
    await page.context().close();
    await harness.stop();

    // A fresh app with a data folder of its own: the file alone carries the app.
    harness = await startHarness({ dataDir: join(work, 'data-2') });
    page = await freshPage(browser, harness, pageErrors);
    await openFromDisk(page, file, 'lighthouse.json');
    await expect(page.getByText('The app saved in this file.')).toBeVisible();
    await expect.poll(() => appLabels(page)).toEqual(labels);
    await page.context().close();
  });
});

test("a hot folder's form offers the workflow's app: the same pinned inputs in the same order, All inputs for the rest", async ({ appPage: page }) => {
  const work = mkdtempSync(join(tmpdir(), 'flowdeck-e2e-hotapp-'));
  try {
    const file = join(work, 'inpaint.json');
    writeFileSync(file, readFileSync(join(ROOT, 'resources/workflows/inpaint-with-mask.json')));
    await waitConnected(page);
    await openFromDisk(page, file, 'inpaint.json');
    await pin(page, 'fill', '2');
    await expect.poll(() => appLabels(page)).toEqual(['Image', 'Seed', 'Fill']);
    // Reordered: the fill before the seed.
    await page.getByRole('group', { name: 'App inputs' }).getByRole('button', { name: 'Move Fill up' }).click();
    await expect.poll(() => appLabels(page)).toEqual(['Image', 'Fill', 'Seed']);

    await page.getByRole('link', { name: 'Hot folders' }).click();
    await page.getByRole('button', { name: 'Add hot folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add hot folder' });
    await dialog.getByLabel('Workflow file', { exact: true }).fill(file);
    await dialog.getByRole('button', { name: 'Load workflow' }).click();
    await expect(dialog.getByLabel('Image input')).toHaveValue('1.image');
    // The app, without the image input each file fills.
    const app = dialog.getByRole('group', { name: 'App inputs' });
    await expect.poll(() => app.locator('.row > .head > label').allInnerTexts()).toEqual(['Fill', 'Seed']);
    // All inputs: the rest, node by node (the output's file name prefix too).
    const all = dialog.getByRole('switch', { name: 'All inputs' });
    await all.check();
    await expect(dialog.getByRole('group', { name: 'App inputs' })).toHaveCount(0);
    await expect(dialog.getByLabel('File name prefix', { exact: true })).toHaveValue('Flowdeck_inpaint');
    await all.uncheck();

    // A value set here is what the folder's files run with.
    await app.getByLabel('Fill', { exact: true }).selectOption('solid');
    await dialog.getByLabel('Name', { exact: true }).fill('Masks');
    await dialog.getByLabel('Input folder', { exact: true }).fill(join(work, 'in'));
    await dialog.getByLabel('Output folder', { exact: true }).fill(join(work, 'out'));
    await dialog.getByLabel('Mask rule').fill('');
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(dialog).toHaveCount(0);
    const listed = (await page.evaluate(async () => window.flowdeck.invoke('hotFolders.list', undefined))) as {
      ok: boolean;
      value: { folders: { name: string; workflowJson: string }[] };
    };
    const saved = listed.value.folders.find((f) => f.name === 'Masks');
    expect(JSON.parse(saved!.workflowJson)).toMatchObject({ '2': { inputs: { fill: 'solid', seed: 7 } } });
    await page.evaluate(async () => {
      const list = (await window.flowdeck.invoke('hotFolders.list', undefined)) as { value: { folders: { id: string }[] } };
      for (const f of list.value.folders) await window.flowdeck.invoke('hotFolders.remove', { id: f.id });
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

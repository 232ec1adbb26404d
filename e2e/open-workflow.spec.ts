// Opening workflows: the file picker, drag and drop onto the window, the recent list; a UI-format
// workflow that cannot be converted explained, invalid JSON and unknown node classes reported before anything is submitted;
// an image input filled by an upload (with its thumbnail) and run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from './fixtures/index';
import { ROOT } from './fixtures/harness';
import { field, newestJob, openWorkflow, property, runButton, TEXT_TO_IMAGE, waitConnected } from './ui-helpers';

test('a UI-format workflow that cannot be converted says so, and opens no form', async ({ appPage: page }) => {
  // Its node's class is not on the server, and the file names none of its widgets.
  const graph = {
    last_node_id: 1,
    nodes: [{ id: 1, type: 'NoSuchCustomNode', mode: 0, inputs: [], outputs: [], widgets_values: [7, 'x'] }],
    links: [],
    version: 0.4,
  };
  await openWorkflow(page, { name: 'ui-export.json', text: JSON.stringify(graph) });
  const alert = page.getByRole('alert').filter({ hasText: 'The UI-format workflow could not be converted' });
  await expect(alert).toBeVisible();
  await expect(page.getByRole('form', { name: 'Workflow inputs' })).toHaveCount(0);
});

test('invalid JSON is reported with its position', async ({ appPage: page }) => {
  await openWorkflow(page, { name: 'broken.json', text: '{\n  "3": { "class_type": "DemoSampler", }\n' });
  const alert = page.getByRole('alert').filter({ hasText: 'Not valid JSON' });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText(/line 2/);
});

test('unknown node classes are marked and block the run', async ({ appPage: page }) => {
  await waitConnected(page);
  const workflow = JSON.parse(readFileSync(TEXT_TO_IMAGE, 'utf8')) as Record<string, unknown>;
  workflow['7'] = { class_type: 'NoSuchNode', inputs: { strength: 1 } };
  await openWorkflow(page, { name: 'unknown.json', text: JSON.stringify(workflow) });
  const group = page.getByRole('group', { name: '7 NoSuchNode' });
  await expect(group).toContainText('The active server has no node class "NoSuchNode"');
  await runButton(page).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Unknown node classes' })).toContainText('node 7 (NoSuchNode)');
  await expect(page.getByRole('region', { name: 'Jobs' }).getByRole('article')).toHaveCount(0);
});

test('dropping a .json on the window opens it', async ({ appPage: page }) => {
  await page.getByRole('link', { name: 'Queue' }).click();
  const text = readFileSync(TEXT_TO_IMAGE, 'utf8');
  await page.evaluate((content) => {
    // The page's own DOM classes (the Node type check has no DOM library).
    const dom = globalThis as unknown as {
      DataTransfer: new () => { items: { add(file: unknown): void } };
      File: new (parts: string[], name: string, options: { type: string }) => unknown;
      DragEvent: new (type: string, init: { dataTransfer: unknown; bubbles: boolean; cancelable: boolean }) => unknown;
      document: { body: { dispatchEvent(event: unknown): boolean } };
    };
    const transfer = new dom.DataTransfer();
    transfer.items.add(new dom.File([content], 'dropped.json', { type: 'application/json' }));
    for (const type of ['dragenter', 'dragover', 'drop']) {
      dom.document.body.dispatchEvent(new dom.DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }
  }, text);
  // The drop switches to the Run view and opens the file.
  await expect(page.getByRole('link', { name: 'Run', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('group', { name: '3 DemoSampler' })).toBeVisible();
  await expect(page.getByText('Open: dropped.json')).toBeVisible();
});

test('an image input takes an upload, shows its thumbnail, and the workflow runs on it', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, join(ROOT, 'resources/workflows/invert-image.json'));
  const group = page.getByRole('group', { name: '1 LoadImage' });
  await group.getByLabel('Upload image').setInputFiles(join(ROOT, 'resources/demo/example.png'));
  // The upload is shown under its own name; the demo service names it by content, as the cloud
  // does, and that name is what the workflow sends.
  const thumbnail = group.getByRole('img', { name: 'Thumbnail of example.png' });
  await expect(thumbnail).toBeVisible();
  await expect.poll(() => property(thumbnail, 'naturalWidth')).toBeGreaterThan(0);
  await expect(field(page, '1 LoadImage', 'image')).toHaveValue(/^[0-9a-f]{16}\.png$/);
  // Ctrl+Enter runs, like the Run button.
  await page.keyboard.press('Control+Enter');
  const card = newestJob(page);
  await expect(card.getByText('Status: done')).toBeVisible({ timeout: 20_000 });
  await expect(card.getByRole('img', { name: /^Output Flowdeck_inverted.*\.png$/ })).toBeVisible();
});

test('recently opened files are listed and open again with one click', async ({ appPage: page }) => {
  // Files opened by path (the desktop app's dialog; the harness accepts any path) are remembered.
  const opened = await page.evaluate((path) => window.flowdeck.invoke('workflow.open', { path }), join(ROOT, 'resources/workflows/invert-image.json'));
  expect(opened.ok).toBe(true);
  await page.reload();
  const recent = page.getByRole('navigation', { name: 'Recent workflows' });
  await recent.getByRole('button', { name: 'invert-image.json' }).click();
  await expect(page.getByRole('group', { name: '1 LoadImage' })).toBeVisible();
  await expect(page.getByText('Open: invert-image.json')).toBeVisible();
});

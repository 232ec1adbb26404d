// Opening the workflows people have, in the app (harness + the built-in demo service):
//   1. A REAL output PNG (made by a job run here, with the prompt chunk the server wrote) dropped
//      anywhere on the window opens its workflow in the Run view, with the values that ran.
//   2. A PNG without a workflow says so plainly, and no form appears.
//   3. The library's "Open workflow" on that output opens the same workflow in the Run view.
//   4. A UI-format file dropped on the window is converted and opens as a form.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { ROOT } from './fixtures/harness';
import { expect, test } from './fixtures/index';
import { field, openWorkflow, runOpenWorkflow, textToImage, waitConnected } from './ui-helpers';

const PROMPT = 'a lighthouse opened from its own output';
const PREFIX = 'OpenImage';
const UI_FILE = join(ROOT, 'tests/fixtures/ui-demo-sampler.json');

/** Drops a file with these bytes onto the page body, as a file dragged from the desktop would. */
async function dropFile(page: Page, name: string, type: string, bytes: Uint8Array): Promise<void> {
  await page.evaluate(
    ({ name, type, data }) => {
      // The page's own DOM classes (the Node type check has no DOM library).
      const dom = globalThis as unknown as {
        DataTransfer: new () => { items: { add(file: unknown): void } };
        File: new (parts: Uint8Array[], name: string, options: { type: string }) => unknown;
        DragEvent: new (type: string, init: { dataTransfer: unknown; bubbles: boolean; cancelable: boolean }) => unknown;
        document: { body: { dispatchEvent(event: unknown): boolean } };
      };
      const transfer = new dom.DataTransfer();
      transfer.items.add(new dom.File([new Uint8Array(data)], name, { type }));
      for (const kind of ['dragenter', 'dragover', 'drop']) {
        dom.document.body.dispatchEvent(new dom.DragEvent(kind, { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }
    },
    { name, type, data: Array.from(bytes) },
  );
}

/** The bytes of the newest job's first PNG output, as the server serves them. */
async function newestOutputPng(page: Page): Promise<{ name: string; bytes: Uint8Array }> {
  const got = await page.evaluate(async () => {
    const jobs = await window.flowdeck.invoke('jobs.list');
    if (!jobs.ok) throw new Error(jobs.error.message);
    const job = jobs.value.jobs.find((j) => j.outputs.some((o) => o.filename.endsWith('.png')));
    if (!job) throw new Error('no job with a PNG output');
    const file = job.outputs.find((o) => o.filename.endsWith('.png'))!;
    const fetched = await window.flowdeck.invoke('output.fetch', {
      promptId: job.promptId,
      file: { filename: file.filename, subfolder: file.subfolder, type: file.type },
    });
    if (!fetched.ok) throw new Error(fetched.error.message);
    return { name: file.filename, data: Array.from(fetched.value.bytes) };
  });
  return { name: got.name, bytes: new Uint8Array(got.data) };
}

test.describe.configure({ mode: 'serial' });

let output: { name: string; bytes: Uint8Array } | null = null;

test('a real output PNG dropped anywhere on the window opens the workflow that made it', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, { ...textToImage({ prompt: PROMPT, steps: 2, delay_ms: 10, seed: 4242 }), name: `${PREFIX}.json` });
  await page.getByRole('group', { name: '3 DemoSampler' }).waitFor();
  await runOpenWorkflow(page);
  output = await newestOutputPng(page);
  expect(output.name).toMatch(/\.png$/);

  // Something else is open, and another view shows: the drop must switch both.
  await openWorkflow(page, join(ROOT, 'resources/workflows/invert-image.json'));
  await expect(page.getByRole('group', { name: '1 LoadImage' })).toBeVisible();
  await page.getByRole('link', { name: 'Queue' }).click();

  await dropFile(page, output.name, 'image/png', output.bytes);
  await expect(page.getByRole('link', { name: 'Run', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(field(page, '3 DemoSampler', 'prompt')).toHaveValue(PROMPT);
  await expect(field(page, '3 DemoSampler', 'seed')).toHaveValue('4242');
  await expect(page.getByRole('group', { name: '1 LoadImage' })).toHaveCount(0);
  await expect(page.getByText(`Open: ${output.name}`)).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: `read from the image "${output.name}"` })).toBeVisible();
});

test('a PNG without a workflow says so plainly', async ({ appPage: page }) => {
  await page.getByRole('link', { name: 'Run', exact: true }).click();
  await dropFile(page, 'example.png', 'image/png', new Uint8Array(readFileSync(join(ROOT, 'resources/demo/example.png'))));
  await expect(page.getByRole('alert').filter({ hasText: 'This image carries no workflow' })).toBeVisible();
  await expect(page.getByRole('form', { name: 'Workflow inputs' })).toHaveCount(0);
});

test('"Open workflow" in the library detail opens the workflow of that output in the Run view', async ({ appPage: page }) => {
  expect(output, 'the first test made the output').not.toBeNull();
  const name = output!.name;
  await page.getByRole('link', { name: 'Library' }).click();
  const tile = page.getByRole('grid', { name: 'Library outputs' }).getByRole('img', { name, exact: true });
  await expect(tile).toBeVisible({ timeout: 20_000 });
  await tile.click();
  const detail = page.getByRole('complementary', { name });
  await detail.getByRole('button', { name: 'Open workflow' }).click();
  await expect(page.getByRole('link', { name: 'Run', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(field(page, '3 DemoSampler', 'prompt')).toHaveValue(PROMPT);
  await expect(field(page, '3 DemoSampler', 'seed')).toHaveValue('4242');
});

test('a UI-format workflow dropped on the window is converted and opens as a form', async ({ appPage: page }) => {
  await waitConnected(page);
  await dropFile(page, 'ui-demo-sampler.json', 'application/json', new Uint8Array(readFileSync(UI_FILE)));
  await expect(field(page, '3 DemoSampler', 'prompt')).toHaveValue('a lighthouse from a UI file');
  await expect(field(page, '9 SaveImage', 'filename_prefix')).toHaveValue('FromUi');
  await expect(page.getByRole('status').filter({ hasText: 'UI-format workflow' })).toBeVisible();
});

// Hot folders through the app's UI, on the harness's built-in demo service: add a folder with the
// form (typed paths: the harness has no folder picker; the workflow by its path; the image input
// picked from the workflow's LoadImage), drop PNGs into it, watch each row reach "done" with its
// outputs and the counters follow, find the inverted outputs on disk and in the library, see the
// drained notice; then a file that is not an image fails with its reason and can be retried.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { PNG } from 'pngjs';
import { expect, test } from './fixtures/index';
import { bridgeLog, recordBridge, waitConnected } from './ui-helpers';

const INVERT_WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'hot' } },
};

/** An opaque 6x4 PNG of one colour. */
function solidPng(rgb: [number, number, number]): Buffer {
  const png = new PNG({ width: 6, height: 4 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([...rgb, 255], i);
  return PNG.sync.write(png);
}

function firstPixel(path: string): number[] {
  return [...PNG.sync.read(readFileSync(path)).data.subarray(0, 3)];
}

let root = '';
test.beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'flowdeck-hotui-'));
});
test.afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** The counter "N name" in a folder's card. */
function counter(card: Locator, name: string): Locator {
  return card
    .getByRole('list', { name: /^Counters of / })
    .getByRole('listitem')
    .filter({ hasText: new RegExp(`\\b${name}$`) });
}

test('a hot folder added in the UI runs dropped images, shows them done, and puts the outputs on disk and in the library', async ({ appPage: page }) => {
  test.setTimeout(120_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const inputDir = join(root, 'in');
  const outputDir = join(root, 'out');
  const staging = join(root, 'staging');
  for (const dir of [inputDir, staging]) mkdirSync(dir, { recursive: true });
  const workflowPath = join(root, 'invert.json');
  writeFileSync(workflowPath, JSON.stringify(INVERT_WORKFLOW, null, 2));
  await recordBridge(page);
  await waitConnected(page);

  await page.getByRole('link', { name: 'Hot folders' }).click();
  await expect(page.getByText('No hot folders yet.')).toBeVisible();
  await page.getByRole('button', { name: 'Add hot folder' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add hot folder' });
  await expect(dialog).toBeVisible();

  // Saving an empty form names what is missing and keeps the dialog open.
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(dialog.getByRole('alert')).toHaveText(/need attention/);
  await expect(dialog.getByLabel('Input folder', { exact: true })).toHaveAttribute('aria-invalid', 'true');

  await dialog.getByLabel('Name', { exact: true }).fill('Scans');
  // No folder picker in the harness: the note says to type the path.
  await dialog.getByRole('button', { name: 'Browse… Input folder' }).click();
  await expect(dialog.getByText("No folder picker here: type the folder's full path.")).toBeVisible();
  await dialog.getByLabel('Input folder', { exact: true }).fill(inputDir);
  await dialog.getByLabel('Output folder', { exact: true }).fill(outputDir);
  // Typing into a marked field clears its mark (the other marks stay until they are fixed).
  await expect(dialog.getByLabel('Input folder', { exact: true })).not.toHaveAttribute('aria-invalid');
  await expect(dialog.getByLabel('Image input')).toBeDisabled();
  await dialog.getByLabel('Workflow file', { exact: true }).fill(workflowPath);
  await dialog.getByRole('button', { name: 'Load workflow' }).click();
  await expect(dialog.getByText('invert.json', { exact: true })).toBeVisible();
  const imageInput = dialog.getByLabel('Image input');
  await expect(imageInput).toBeEnabled();
  // The only image input is listed (and, being the only one, already chosen).
  await expect(imageInput.locator('option:not([disabled])')).toHaveText(['1 · LoadImage · image']);
  await imageInput.selectOption({ label: '1 · LoadImage · image' });
  await expect(dialog.getByLabel('Output name rule')).toHaveValue('{stem}_{node}_{index}.{ext}');
  await dialog.getByLabel('Concurrency').fill('2');
  // A rule main refuses: its explanation is shown and everything typed stays.
  await dialog.getByLabel('Output name rule').fill('out.{ext}');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(dialog.getByRole('alert')).toHaveText(/must name the input or the job/);
  await expect(dialog.getByLabel('Input folder', { exact: true })).toHaveValue(inputDir);
  await expect(imageInput).toHaveValue('1.image');
  await dialog.getByLabel('Output name rule').fill('{stem}_{node}_{index}.{ext}');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(dialog).toBeHidden();

  const card = page.getByRole('article', { name: 'Scans' });
  await expect(card).toBeVisible();
  await expect(card.getByTitle('Input folder')).toHaveText(inputDir);
  await expect(card.getByTitle('Output folder')).toHaveText(outputDir);
  await expect(card.getByText('Workflow: invert.json · image input 1.image')).toBeVisible();
  await expect(counter(card, 'done')).toHaveText('0 done');
  await expect(card.getByRole('button', { name: 'Retry failed (0)' })).toBeDisabled();

  // Three images arrive (written elsewhere, then copied in, as a scanner or a sync client would).
  const colours: Record<string, [number, number, number]> = { 'red.png': [200, 10, 30], 'green.png': [20, 180, 40], 'blue.png': [5, 60, 250] };
  for (const [name, rgb] of Object.entries(colours)) writeFileSync(join(staging, name), solidPng(rgb));
  for (const name of Object.keys(colours)) copyFileSync(join(staging, name), join(inputDir, name));

  const table = page.getByRole('table', { name: 'Files of Scans' });
  for (const name of Object.keys(colours)) {
    const row = table.getByRole('row', { name: new RegExp(`^${name.replace('.', '\\.')}`) });
    await expect(row.getByRole('cell').first()).toHaveText('done', { timeout: 45_000 });
  }
  await expect(counter(card, 'done')).toHaveText('3 done');
  await expect(counter(card, 'failed')).toHaveText('0 failed');
  await expect(counter(card, 'waiting')).toHaveText('0 waiting');
  await expect(counter(card, 'running')).toHaveText('0 running');
  await expect(page.getByRole('status', { name: 'Hot folder notices' })).toContainText('Hot folder Scans: 3 done, 0 failed');

  // Each row names its output; the file exists in the output folder and is the inverted image.
  const outputsByInput = new Map<string, string>();
  for (const [name, rgb] of Object.entries(colours)) {
    const row = table.getByRole('row', { name: new RegExp(`^${name.replace('.', '\\.')}`) });
    const output = row.getByRole('listitem');
    await expect(output).toHaveCount(1);
    const path = await output.getAttribute('title');
    expect(path).not.toBeNull();
    expect(path!.startsWith(outputDir)).toBe(true);
    await expect(output).toHaveText(new RegExp(`^${name.replace('.png', '')}_3_\\d+\\.png$`));
    expect(existsSync(path!)).toBe(true);
    expect(firstPixel(path!)).toEqual(rgb.map((c) => 255 - c));
    outputsByInput.set(join(inputDir, name), path!);
  }

  // The outputs are in the library, each knowing the input file it was made from.
  await expect
    .poll(
      async () =>
        page.evaluate(async () => {
          const listed = await window.flowdeck.invoke('library.list', {});
          if (!listed.ok) return `list failed: ${listed.error.message}`;
          const sources: string[] = [];
          for (const item of listed.value.items) {
            if (item.status !== 'done') continue;
            const detail = await window.flowdeck.invoke('library.get', { id: item.id });
            if (detail.ok && detail.value.sourceFile) sources.push(detail.value.sourceFile);
          }
          return sources.sort();
        }),
      { timeout: 20_000 },
    )
    .toEqual([...outputsByInput.keys()].sort());

  // A file that is not an image fails with its reason, without a job; "Retry failed" is offered.
  writeFileSync(join(staging, 'notes.png'), 'these are notes, not pixels\n');
  copyFileSync(join(staging, 'notes.png'), join(inputDir, 'notes.png'));
  const broken = table.getByRole('row', { name: /^notes\.png/ });
  await expect(broken.getByRole('cell').first()).toHaveText('failed', { timeout: 30_000 });
  await expect(broken.getByRole('cell').nth(3)).toHaveText(/\S/);
  const reason = (await broken.getByRole('cell').nth(3).textContent()) ?? '';
  expect(reason).toMatch(/not an image/i);
  await expect(counter(card, 'failed')).toHaveText('1 failed');
  await expect(counter(card, 'done')).toHaveText('3 done');
  await expect(page.getByRole('status', { name: 'Hot folder notices' })).toContainText('Hot folder Scans: 3 done, 1 failed');
  // One notice per folder: the new batch's summary replaced the earlier one instead of piling up.
  await expect(page.getByRole('status', { name: 'Hot folder notices' })).not.toContainText('3 done, 0 failed');
  const retry = card.getByRole('button', { name: 'Retry failed (1)' });
  await expect(retry).toBeEnabled();
  await retry.click();
  // Main took it back (one file) and it fails again for the same reason.
  await expect
    .poll(async () => (await bridgeLog(page)).filter((r) => r.kind === 'result' && r.name === 'hotFolders.retryFailed').map((r) => r.text))
    .toEqual(['{"ok":true,"value":{"count":1}}']);
  await expect(broken.getByRole('cell').first()).toHaveText('failed', { timeout: 30_000 });
  await expect(counter(card, 'failed')).toHaveText('1 failed');

  // Nothing of the input folder's images was taken twice.
  await expect(counter(card, 'done')).toHaveText('3 done');
  expect(pageErrors).toEqual([]);
});

test('pause holds new files until resume; edit renames; open output explains there is no file manager; remove asks first', async ({ appPage: page }) => {
  test.setTimeout(90_000);
  const inputDir = join(root, 'in2');
  const outputDir = join(root, 'out2');
  for (const dir of [inputDir, join(root, 'staging')]) mkdirSync(dir, { recursive: true });
  await waitConnected(page);
  // The folder is made through the bridge (the form is the first test's subject).
  const saved = await page.evaluate(
    async ([input, output, workflowJson]) =>
      window.flowdeck.invoke('hotFolders.save', { name: 'Prints', inputDir: input, outputDir: output, workflowJson, bind: '1.image', settleMs: 200 }),
    [inputDir, outputDir, JSON.stringify(INVERT_WORKFLOW)] as const,
  );
  expect(saved.ok).toBe(true);
  await page.getByRole('link', { name: 'Hot folders' }).click();
  const card = page.getByRole('article', { name: 'Prints' });
  await expect(card).toBeVisible();

  // Paused by the user: the card says so, and a dropped file waits.
  await card.getByRole('button', { name: 'Pause' }).click();
  await expect(card.getByText('Paused by you')).toBeVisible();
  await expect(card.getByRole('button', { name: 'Pause' })).toHaveCount(0);
  await card.getByRole('button', { name: 'Show files' }).click();
  await expect(card.getByRole('button', { name: 'Show files' })).toHaveAttribute('aria-pressed', 'true');
  writeFileSync(join(root, 'staging', 'cyan.png'), solidPng([0, 200, 200]));
  copyFileSync(join(root, 'staging', 'cyan.png'), join(inputDir, 'cyan.png'));
  const table = page.getByRole('table', { name: 'Files of Prints' });
  const row = table.getByRole('row', { name: /^cyan\.png/ });
  await expect(row).toBeVisible({ timeout: 20_000 });
  await page.waitForTimeout(1500);
  await expect(row.getByRole('cell').first()).not.toHaveText('done');
  await expect(counter(card, 'done')).toHaveText('0 done');

  // Resumed (with the keyboard): the file runs.
  await card.getByRole('button', { name: 'Resume' }).focus();
  await page.keyboard.press('Enter');
  await expect(card.getByText('Paused by you')).toHaveCount(0);
  await expect(row.getByRole('cell').first()).toHaveText('done', { timeout: 30_000 });
  await expect(counter(card, 'done')).toHaveText('1 done');

  // Open output folder: the harness has no file manager, and says where the folder is.
  await card.getByRole('button', { name: 'Open output folder' }).click();
  await expect(page.getByRole('alert')).toContainText(outputDir);

  // Edit: the dialog starts from the folder's values; a new name is saved.
  await card.getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Prints' });
  await expect(dialog.getByLabel('Input folder', { exact: true })).toHaveValue(inputDir);
  await expect(dialog.getByLabel('Image input')).toHaveValue('1.image');
  await dialog.getByLabel('Name', { exact: true }).fill('Prints 2');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(dialog).toBeHidden();
  const renamed = page.getByRole('article', { name: 'Prints 2' });
  await expect(renamed).toBeVisible();
  await expect(counter(renamed, 'done')).toHaveText('1 done');

  // Remove asks first; "Keep it" keeps it, "Remove hot folder" removes it (files stay on disk).
  await renamed.getByRole('button', { name: 'Remove' }).click();
  await expect(renamed.getByRole('button', { name: 'Remove hot folder' })).toBeFocused();
  await renamed.getByRole('button', { name: 'Keep it' }).click();
  await expect(renamed).toBeVisible();
  await renamed.getByRole('button', { name: 'Remove' }).click();
  await renamed.getByRole('button', { name: 'Remove hot folder' }).click();
  await expect(page.getByRole('article', { name: 'Prints 2' })).toHaveCount(0);
  expect(existsSync(join(inputDir, 'cyan.png'))).toBe(true);
  const listed = await page.evaluate(async () => window.flowdeck.invoke('hotFolders.list', undefined));
  expect(listed.ok && listed.value.folders.map((f) => f.name)).not.toContain('Prints 2');
});

test('a folder paused because the key was rejected says so and leads to the key field', async ({ appPage: page }) => {
  test.setTimeout(90_000);
  const inputDir = join(root, 'in3');
  for (const dir of [inputDir, join(root, 'staging')]) mkdirSync(dir, { recursive: true });
  await waitConnected(page);
  // A cloud profile on the demo service with a key it does not accept, made active.
  const made = await page.evaluate(async (workflowJson) => {
    const state = await window.flowdeck.invoke('profiles.list', undefined);
    if (!state.ok) return state.error.message;
    const demo = state.value.profiles.find((p) => p.kind === 'demo');
    if (!demo) return 'no demo profile';
    const profile = await window.flowdeck.invoke('profiles.save', { name: 'Cloud, wrong key', kind: 'cloud', baseUrl: demo.baseUrl, select: true });
    if (!profile.ok) return profile.error.message;
    const key = await window.flowdeck.invoke('key.save', { profileId: profile.value.id, key: 'fdk-wrong-5b21c0d9e4f7a836' });
    if (!key.ok) return key.error.message;
    return workflowJson;
  }, JSON.stringify(INVERT_WORKFLOW));
  expect(made).toBe(JSON.stringify(INVERT_WORKFLOW));
  const saved = await page.evaluate(
    async ([input, output, workflowJson]) =>
      window.flowdeck.invoke('hotFolders.save', { name: 'Locked', inputDir: input, outputDir: output, workflowJson, bind: '1.image', settleMs: 200 }),
    [inputDir, join(root, 'out3'), made] as const,
  );
  expect(saved.ok).toBe(true);

  await page.getByRole('link', { name: 'Hot folders' }).click();
  const card = page.getByRole('article', { name: 'Locked' });
  writeFileSync(join(root, 'staging', 'grey.png'), solidPng([128, 128, 128]));
  copyFileSync(join(root, 'staging', 'grey.png'), join(inputDir, 'grey.png'));
  await expect(card.getByText(/^Paused: The server did not accept the API key/)).toBeVisible({ timeout: 30_000 });
  await expect(card.getByRole('button', { name: 'Resume' })).toBeVisible();
  await card.getByRole('button', { name: 'Set the API key' }).click();
  await expect(page.getByRole('link', { name: 'Servers' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByLabel('API key', { exact: true })).toBeFocused();
});

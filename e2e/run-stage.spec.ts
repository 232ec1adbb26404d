// The Run view's Result stage (issue 21): the live preview and then the output in one large box
// (the output never smaller than the preview was), what the job was run with as chips, the actions
// by name (a disabled one says why), "Reuse parameters" putting a 2^64-1 seed back exactly, the
// session strip putting an earlier output on the stage, and several outputs (video and audio)
// playing on the stage.
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { ROOT } from './fixtures/harness';
import { expect, test } from './fixtures/index';
import { field, openWorkflow, runButton, textToImage, waitConnected } from './ui-helpers';

/** The size the picture is drawn at inside its box (object-fit: contain), in CSS pixels: an <img>'s, or the preview canvas's. */
function drawnSize(image: Locator): Promise<{ width: number; height: number }> {
  return image.evaluate((el) => {
    const img = el as unknown as {
      naturalWidth?: number;
      naturalHeight?: number;
      width: number;
      height: number;
      getBoundingClientRect(): { width: number; height: number };
    };
    const natural = { width: img.naturalWidth ?? img.width, height: img.naturalHeight ?? img.height };
    const box = img.getBoundingClientRect();
    const scale = Math.min(box.width / natural.width, box.height / natural.height);
    return { width: natural.width * scale, height: natural.height * scale };
  });
}

test('the output on the stage is at least as large as the preview was, with its chips and actions', async ({ appPage: page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await waitConnected(page);
  await openWorkflow(page, textToImage({ steps: 6, delay_ms: 2400, prompt: 'a red barn in the snow' }));
  await runButton(page).click();
  const stage = page.getByRole('region', { name: 'Result' });
  const preview = stage.getByRole('img', { name: 'Live preview' });
  await expect(preview).toBeVisible({ timeout: 15_000 });
  // The preview is a canvas: drawn once it has the frame's size (a blank canvas is 300 wide).
  await expect.poll(() => preview.evaluate((el) => (el as unknown as { width: number }).width)).toBe(256);
  // Drawn on a canvas from a decoded bitmap (no object URL); at most the stage's and the card's frame open.
  expect(await preview.evaluate((el) => el.tagName)).toBe('CANVAS');
  expect(
    await page.evaluate(() => (window as unknown as { __flowdeckPreviewStats: { liveBitmaps: number } }).__flowdeckPreviewStats.liveBitmaps),
  ).toBeLessThanOrEqual(2);
  const previewSize = await drawnSize(preview);
  // While it runs the actions are there, disabled, saying why.
  await expect(stage.getByRole('button', { name: 'Reuse parameters' })).toBeDisabled();
  await expect(stage.getByRole('button', { name: 'Reuse parameters' })).toHaveAccessibleDescription('Available when the job is done.');

  const output = stage.getByRole('img', { name: /^Result Flowdeck.*\.png$/ });
  await expect(output).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => output.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth)).toBe(256);
  const outputSize = await drawnSize(output);
  expect(outputSize.width).toBeGreaterThanOrEqual(previewSize.width);
  expect(outputSize.height).toBeGreaterThanOrEqual(previewSize.height);
  // Far larger than the old 128 px thumbnail.
  expect(outputSize.width).toBeGreaterThan(300);

  // Named by its prompt and seed; the chips say what it was run with.
  await expect(stage.getByRole('heading', { name: 'a red barn in the snow · seed 42' })).toBeVisible();
  const chips = stage.getByRole('list', { name: 'Parameters' });
  await expect(chips.getByRole('listitem').filter({ hasText: /^prompt a red barn in the snow$/ })).toHaveCount(1);
  await expect(chips.getByRole('listitem').filter({ hasText: /^seed 42$/ })).toHaveCount(1);
  await expect(chips.getByRole('listitem').filter({ hasText: /^steps 6$/ })).toHaveCount(1);
  await expect(chips.getByRole('listitem').filter({ hasText: /^size 256×256$/ })).toHaveCount(1);
  await expect(chips.getByRole('listitem').filter({ hasText: /^time .* · waited \d+ s · ran \d+ s$/ })).toHaveCount(1);

  // The actions, by name; the ones that cannot act here say why.
  for (const name of ['Reuse parameters', 'Paint mask', 'Open in viewer', 'Copy']) await expect(stage.getByRole('button', { name, exact: true })).toBeEnabled();
  const useAsInput = stage.getByRole('button', { name: 'Use as input' });
  await expect(useAsInput).toBeDisabled();
  await expect(useAsInput).toHaveAccessibleDescription(/has no image input/);
  await expect(stage.getByRole('button', { name: 'Show in folder' })).toHaveAccessibleDescription(/cannot reach the desktop/);
  await stage.getByRole('button', { name: 'Open in viewer' }).click();
  await expect(page.getByRole('dialog', { name: 'Image viewer' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Image viewer' })).toHaveCount(0);

  // The session strip has it, pressed, as the one on the stage.
  const strip = stage.getByRole('list', { name: "This session's outputs" });
  await expect(strip.getByRole('button', { name: /^Show Flowdeck.*\.png on the stage$/ })).toHaveAttribute('aria-pressed', 'true');
});

test('"Reuse parameters" puts a 2^64-1 seed back exactly, and the strip puts an earlier output on the stage', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, textToImage({ steps: 2, delay_ms: 0, prompt: 'first picture' }));
  const seed = field(page, '3 DemoSampler', 'seed');
  await seed.fill('18446744073709551615');
  await runButton(page).click();
  const stage = page.getByRole('region', { name: 'Result' });
  await expect(stage.getByRole('heading', { name: 'first picture · seed 18446744073709551615' })).toBeVisible({ timeout: 15_000 });
  await expect(stage.getByRole('button', { name: 'Reuse parameters' })).toBeEnabled({ timeout: 30_000 });
  await expect(
    stage
      .getByRole('list', { name: 'Parameters' })
      .getByRole('listitem')
      .filter({ hasText: /^seed 18446744073709551615$/ }),
  ).toHaveCount(1);
  const firstName = ((await stage.getByRole('img', { name: /^Result / }).getAttribute('alt')) ?? '').replace(/^Result /, '');
  expect(firstName).toMatch(/\.png$/);

  // A second run with other values.
  await seed.fill('7');
  await field(page, '3 DemoSampler', 'prompt').fill('second picture');
  await field(page, '3 DemoSampler', 'steps').fill('3');
  await runButton(page).click();
  await expect(stage.getByRole('heading', { name: 'second picture · seed 7' })).toBeVisible({ timeout: 15_000 });
  const strip = stage.getByRole('list', { name: "This session's outputs" });
  const older = strip.getByRole('button', { name: `Show ${firstName} on the stage` });
  await expect(stage.getByRole('button', { name: 'Reuse parameters' })).toBeEnabled({ timeout: 30_000 });
  // Newest first: the second picture leads the strip, shown; the first follows it.
  await expect(strip.getByRole('button').first()).toHaveAttribute('aria-pressed', 'true');
  await expect(strip.getByRole('button').nth(1)).toHaveAccessibleName(`Show ${firstName} on the stage`);
  await expect(older).toHaveAttribute('aria-pressed', 'false');

  // The older output back on the stage.
  await older.click();
  await expect(stage.getByRole('heading', { name: 'first picture · seed 18446744073709551615' })).toBeVisible();
  await expect(older).toHaveAttribute('aria-pressed', 'true');

  // Its values back in the form: every digit of the seed.
  await stage.getByRole('button', { name: 'Reuse parameters' }).click();
  await expect(seed).toHaveValue('18446744073709551615');
  await expect(field(page, '3 DemoSampler', 'prompt')).toHaveValue('first picture');
  await expect(field(page, '3 DemoSampler', 'steps')).toHaveValue('2');

  // A new run from the form takes the stage again.
  await field(page, '3 DemoSampler', 'prompt').fill('third picture');
  await runButton(page).click();
  await expect(stage.getByRole('heading', { name: 'third picture · seed 18446744073709551615' })).toBeVisible({ timeout: 15_000 });
});

test('a job with several outputs shows them as a grid on the stage, video and audio playing there', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, join(ROOT, 'resources/workflows/video-and-audio.json'));
  await runButton(page).click();
  const stage = page.getByRole('region', { name: 'Result' });
  const grid = stage.getByRole('list', { name: 'Outputs of this job' });
  await expect(grid).toBeVisible({ timeout: 30_000 });
  const video = grid.locator('video');
  const audio = grid.locator('audio');
  await expect(video).toHaveCount(1);
  await expect(audio).toHaveCount(1);
  await expect(video).toHaveAttribute('controls', '');
  // The players can play what they hold: the browser read their length.
  await expect.poll(() => video.evaluate((el) => (el as unknown as { duration: number }).duration)).toBeGreaterThan(0);
  await expect.poll(() => audio.evaluate((el) => (el as unknown as { duration: number }).duration)).toBeGreaterThan(0);
  // Neither is an image: the image actions say why.
  await expect(stage.getByRole('button', { name: 'Copy', exact: true })).toHaveAccessibleDescription('Only an image can be copied.');
});

test('a repeated run is one folded group that keeps the running job in sight, with progress that agrees with its steps', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, textToImage({ steps: 8, delay_ms: 6000, prompt: 'a slow harbour' }));
  await page.getByLabel('Repeat', { exact: true }).fill('3');
  await runButton(page).click();
  const jobs = page.getByRole('region', { name: 'Jobs' });
  const group = jobs.getByRole('region', { name: /^a slow harbour/ });
  await expect(group.getByText('3 runs, 0 done')).toBeVisible({ timeout: 15_000 });
  await expect(group.getByRole('button', { name: 'Show the 3 runs' })).toHaveAttribute('aria-expanded', 'false');
  // Folded, the group shows only its running run, first in the panel.
  const running = group.getByRole('article');
  await expect(running).toHaveCount(1);
  await expect(running.getByText('Status: running')).toBeVisible({ timeout: 15_000 });
  // Overall moves with the steps: once a step is done it is no longer "0 of 2 nodes".
  await expect(running.getByRole('progressbar', { name: 'Step progress' })).toHaveAttribute('aria-valuetext', /^step [1-8] of 8$/, { timeout: 15_000 });
  await expect(running.getByRole('progressbar', { name: 'Overall progress' })).toHaveAttribute('aria-valuetext', /^\d+% · node 1 of 2$/);
  await expect(page.getByRole('region', { name: 'Result' }).getByRole('heading', { name: /^a slow harbour · seed \d+$/ })).toBeVisible();
  // Nothing left running behind.
  await page.getByRole('link', { name: /^Queue/ }).click();
  await page.getByRole('button', { name: 'Clear pending' }).click();
  await page.getByRole('button', { name: 'Interrupt' }).click();
  await expect(page.getByRole('group', { name: /^Running/ }).getByRole('checkbox')).toHaveCount(0, { timeout: 15_000 });
});

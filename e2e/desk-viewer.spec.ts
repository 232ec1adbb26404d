// The image viewer (issue 13): a dialog named "Image viewer" opened from an output thumbnail (never
// a download), fit / 100% / wheel zoom, arrow keys between outputs, Escape, the comparison with the
// job's input image, video and audio playing in it, and "Use as input" on a workflow without an
// image input offering to open one that has.
import { join } from 'node:path';
import { test, expect } from './fixtures/index';
import { ROOT } from './fixtures/harness';
import { openWorkflow, runButton, runOpenWorkflow, TEXT_TO_IMAGE, waitConnected } from './ui-helpers';

const INVERT = join(ROOT, 'resources/workflows/invert-image.json');
const EXAMPLE = join(ROOT, 'resources/demo/example.png');

test('an output thumbnail opens the viewer: zoom, compare with the input, Escape', async ({ appPage: page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await waitConnected(page);
  await openWorkflow(page, INVERT);
  await page.getByRole('group', { name: '1 LoadImage' }).getByLabel('Upload image').setInputFiles(EXAMPLE);
  await expect(page.getByRole('group', { name: '1 LoadImage' }).getByRole('img', { name: /^Thumbnail of / })).toBeVisible();
  const card = await runOpenWorkflow(page);

  let downloads = 0;
  page.on('download', () => (downloads += 1));
  await card.getByRole('img', { name: /^Output Flowdeck_inverted.*\.png$/ }).click();
  const viewer = page.getByRole('dialog', { name: 'Image viewer' });
  await expect(viewer).toBeVisible();
  const picture = viewer.getByRole('img', { name: /^Flowdeck_inverted.*\.png$/ });
  await expect(picture).toBeVisible();

  // 100% and fit, and the wheel zooms.
  const scale = viewer.getByText(/ · \d+%$/);
  await viewer.getByRole('button', { name: '100%' }).click();
  await expect(scale).toHaveText(/ · 100%$/);
  const box = (await picture.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -400);
  await expect.poll(async () => Number(/(\d+)%$/.exec((await scale.textContent()) ?? '')?.[1])).toBeGreaterThan(100);
  // Dragging pans the picture.
  const before = (await picture.boundingBox())!;
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2 + 30, { steps: 4 });
  await page.mouse.up();
  await expect.poll(async () => Math.round((await picture.boundingBox())!.x - before.x)).toBe(60);
  await viewer.getByRole('button', { name: 'Fit' }).click();
  await expect(viewer.getByRole('button', { name: 'Fit' })).toHaveAttribute('aria-pressed', 'true');

  // Side by side and slider comparison with the job's input image.
  await viewer.getByLabel('Compare with input').selectOption('side');
  await expect(viewer.getByRole('img', { name: /^Input / })).toBeVisible();
  await expect
    .poll(() => viewer.getByRole('img', { name: /^Input / }).evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
    .toBeGreaterThan(0);
  await page.screenshot({ path: 'screenshots/viewer-compare-1280x800.png' });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: 'screenshots/viewer-compare-dark-1280x800.png' });
  await page.emulateMedia({ colorScheme: 'light' });
  await viewer.getByLabel('Compare with input').selectOption('slider');
  await expect(viewer.getByRole('slider', { name: 'Comparison position' })).toBeVisible();
  await viewer.getByLabel('Compare with input').selectOption('off');

  // The actions are there.
  for (const name of ['Copy', 'Use as input', 'Paint mask']) await expect(viewer.getByRole('button', { name, exact: true })).toBeEnabled();
  // The harness cannot reach a file manager: the button says so rather than failing.
  await expect(viewer.getByRole('button', { name: 'Show in folder' })).toBeDisabled();
  await expect(viewer.getByRole('button', { name: 'Show in folder' })).toHaveAttribute('title', /browser harness/);
  await page.setViewportSize({ width: 800, height: 600 });
  await page.screenshot({ path: 'screenshots/viewer-800x600.png' });

  await page.keyboard.press('Escape');
  await expect(viewer).toBeHidden();
  expect(downloads).toBe(0);
});

test('video and audio play in the viewer and the arrow keys step between outputs', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, join(ROOT, 'resources/workflows/video-and-audio.json'));
  await page.getByRole('group', { name: '2 DemoVideo' }).waitFor();
  const card = await runOpenWorkflow(page);
  await card.getByRole('button', { name: 'Open in viewer' }).click();
  const viewer = page.getByRole('dialog', { name: 'Image viewer' });
  await expect(viewer).toBeVisible();
  await expect(viewer.getByText('1 of 2')).toBeVisible();
  const video = viewer.locator('video');
  await expect(video).toHaveCount(1);
  await expect.poll(() => video.evaluate((el) => Number((el as unknown as { duration: number }).duration))).toBeGreaterThan(0);
  await viewer.getByRole('heading').click();
  await page.keyboard.press('ArrowRight');
  await expect(viewer.getByText('2 of 2')).toBeVisible();
  const audio = viewer.locator('audio');
  await expect(audio).toHaveCount(1);
  await expect.poll(() => audio.evaluate((el) => Number((el as unknown as { duration: number }).duration))).toBeCloseTo(1.5, 1);
  await page.keyboard.press('ArrowLeft');
  await expect(viewer.getByText('1 of 2')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(viewer).toBeHidden();
});

test('"Use as input" on a workflow with no image input says so and offers to open one that has', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, TEXT_TO_IMAGE);
  await page.getByRole('group', { name: '3 DemoSampler' }).waitFor();
  await page.getByRole('group', { name: '3 DemoSampler' }).getByLabel('steps', { exact: true }).fill('2');
  await runButton(page).click();
  const card = page.getByRole('region', { name: 'Jobs' }).getByRole('article').first();
  await expect(card.getByText('Status: done')).toBeVisible({ timeout: 30_000 });
  const output = card.getByRole('img', { name: /^Output Flowdeck.*\.png$/ });
  const name = ((await output.getAttribute('alt')) ?? '').replace(/^Output /, '');
  await output.click();
  const viewer = page.getByRole('dialog', { name: 'Image viewer' });
  await viewer.getByRole('button', { name: 'Use as input', exact: true }).click();
  await expect(viewer.getByRole('alert')).toContainText('has no image input');
  const chooser = page.waitForEvent('filechooser');
  await viewer.getByRole('button', { name: 'Open a workflow with an image input…' }).click();
  await (await chooser).setFiles(INVERT);
  // The workflow opens and the image goes into its input; the viewer closes on the Run view.
  await expect(viewer).toBeHidden({ timeout: 15_000 });
  const group = page.getByRole('group', { name: '1 LoadImage' });
  await expect(group).toBeVisible();
  await expect(group.getByLabel('image', { exact: true })).not.toHaveValue('example.png');
  await expect(page.getByText(`${name} is now the "image" input of node 1.`)).toBeVisible();
});

test('library tiles: names shortened in the middle, a poster frame for video, no strip at the right, and the viewer', async ({ appPage: page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await waitConnected(page);
  await openWorkflow(page, TEXT_TO_IMAGE);
  await page.getByRole('group', { name: '3 DemoSampler' }).getByLabel('steps', { exact: true }).fill('2');
  await page.getByRole('group', { name: '9 SaveImage' }).getByLabel('filename_prefix', { exact: true }).fill('an_extremely_long_output_name_for_the_tile');
  await runOpenWorkflow(page);
  await openWorkflow(page, join(ROOT, 'resources/workflows/video-and-audio.json'));
  await page.getByRole('group', { name: '2 DemoVideo' }).waitFor();
  await runOpenWorkflow(page);

  await page.getByRole('link', { name: 'Library' }).click();
  const grid = page.getByRole('grid', { name: 'Library outputs' });
  const long = grid.getByRole('gridcell').filter({ has: page.getByRole('img', { name: /^an_extremely_long/ }) });
  await expect(long).toBeVisible({ timeout: 20_000 });
  // The caption keeps the start and the counter with the extension.
  await expect(long.locator('.name')).toHaveText(/^an_extremely.*….*_\d+_\.png$/);

  // A video tile shows a decoded frame (the browser's player, over the type icon).
  // (The first one: an earlier test of this file made a video too.)
  const videoCell = grid
    .getByRole('gridcell')
    .filter({ has: page.getByRole('img', { name: /\.(webm|mp4)$/ }) })
    .first();
  const poster = videoCell.locator('video.poster');
  await expect(poster).toHaveCount(1, { timeout: 20_000 });
  await expect.poll(() => poster.evaluate((el) => (el as unknown as { readyState: number }).readyState), { timeout: 20_000 }).toBeGreaterThanOrEqual(2);

  // The columns share the grid's whole width (no empty strip at the right): each cell is as wide
  // as the width divided among the columns the grid says it has.
  const gridBox = (await grid.boundingBox())!;
  const columns = Number(await grid.getAttribute('aria-colcount'));
  const cell = (await grid.getByRole('gridcell').first().boundingBox())!;
  const inner = await grid.evaluate((el) => el.clientWidth);
  expect(columns).toBeGreaterThan(1);
  expect(Math.abs(columns * cell.width + (columns - 1) * 8 - inner)).toBeLessThan(2);
  expect(gridBox.width - inner).toBeLessThan(24); // only the border and the scrollbar remain
  await page.screenshot({ path: 'screenshots/library-1280x800.png' });

  // The detail's picture opens the viewer.
  await long.click();
  const detail = page.getByRole('complementary');
  await detail.getByRole('img', { name: /^Preview of an_extremely_long/ }).click();
  const viewer = page.getByRole('dialog', { name: 'Image viewer' });
  await expect(viewer).toBeVisible();
  await expect(viewer.getByRole('img', { name: /^an_extremely_long/ })).toBeVisible();
  await expect(viewer.getByRole('button', { name: 'Show in folder' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(viewer).toBeHidden();
  await page.setViewportSize({ width: 800, height: 600 });
  await page.screenshot({ path: 'screenshots/library-800x600.png' });
});

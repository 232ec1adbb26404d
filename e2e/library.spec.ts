// The outputs library in the app: two jobs' outputs appear in the grid (thumbnails from the
// library folder), the search box narrows them by a word of the prompt, the keyboard moves the
// selection and opens the detail, deleting moves the file out of the library folder; the demo's
// video output plays inline from the media URL; a library image opens in the mask painter.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from './fixtures/index';
import { ROOT } from './fixtures/harness';
import type { Locator, Page } from '@playwright/test';
import { newestJob, openWorkflow, property, runButton, runOpenWorkflow, textToImage, waitConnected } from './ui-helpers';

/** Runs a workflow through the Run view and returns the file name of its first output image. */
async function runForImage(page: Page, prompt: string, seed: number): Promise<string> {
  await openWorkflow(page, textToImage({ prompt, seed, steps: 2, delay_ms: 10 }));
  await page.getByRole('group', { name: '3 DemoSampler' }).waitFor();
  const card = await runOpenWorkflow(page);
  const output = card.getByRole('img', { name: /^Output .*\.png$/ }).first();
  return ((await output.getAttribute('alt')) ?? '').replace(/^Output /, '');
}

function grid(page: Page): Locator {
  return page.getByRole('grid', { name: 'Library outputs' });
}

function tile(page: Page, fileName: string): Locator {
  return grid(page).getByRole('img', { name: fileName, exact: true });
}

/** Every finished file in the library folder (dot folders hold downloads, thumbnails, trash). */
function libraryFiles(dataDir: string): string[] {
  const root = join(dataDir, 'library');
  const out: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (name.startsWith('.')) continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(full);
    }
  };
  walk(root);
  return out;
}

test('two jobs in the grid, found by a prompt word, opened with the keyboard, one deleted', async ({ appPage: page, harness }) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await waitConnected(page);
  const first = await runForImage(page, 'a lighthouse with zebrastripes', 101);
  const second = await runForImage(page, 'a quokka on a beach', 202);
  expect(first).not.toBe(second);

  await page.getByRole('link', { name: 'Library' }).click();
  await expect(page.getByRole('heading', { name: 'Library', level: 2 })).toBeVisible();
  await expect(tile(page, first)).toBeVisible({ timeout: 20_000 });
  await expect(tile(page, second)).toBeVisible();
  // Real thumbnails from the library folder once downloaded (not the type icon).
  await expect.poll(() => tile(page, first).getAttribute('src'), { timeout: 20_000 }).toMatch(/^\/media\/thumb\/\d+$/);
  await expect.poll(() => property(tile(page, first), 'naturalWidth'), { timeout: 20_000 }).toBeGreaterThan(0);
  // Newest first.
  const alts = await grid(page)
    .getByRole('img')
    .evaluateAll((images) => images.map((i) => i.getAttribute('alt')));
  expect(alts.indexOf(second)).toBeLessThan(alts.indexOf(first));

  // Search by a word of the first prompt: only its output is left.
  const search = page.getByRole('searchbox', { name: 'Search library' });
  await search.fill('zebrastripes');
  await expect(tile(page, second)).toHaveCount(0);
  await expect(tile(page, first)).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: /^1 output$/ })).toBeVisible();
  await search.fill('');
  await expect(tile(page, second)).toBeVisible();

  // Keyboard: the grid is one tab stop; arrows select, Enter opens the detail.
  await grid(page).focus();
  await page.keyboard.press('ArrowRight'); // selects the first (newest) tile
  await page.keyboard.press('ArrowRight');
  await expect(grid(page)).toHaveAttribute('aria-activedescendant', 'library-cell-1');
  await page.keyboard.press('Enter');
  const detail = page.getByRole('complementary', { name: first });
  await expect(detail).toBeVisible();
  await expect(detail.getByText('a lighthouse with zebrastripes').first()).toBeVisible();
  await expect(detail.getByLabel('Input values')).toContainText('"seed": 101');
  await expect(detail.getByRole('img', { name: `Preview of ${first}` })).toBeVisible();
  // The browser harness cannot reach a desktop: Show in folder says why instead of failing.
  await expect(detail.getByRole('button', { name: 'Show in folder' })).toBeDisabled();

  // Delete the second output (newest: cell 0) with the Delete key, confirmed.
  const before = libraryFiles(harness.dataDir);
  const secondPath = before.find((p) => p.endsWith(`/${second}`));
  expect(secondPath, `the library folder holds ${second}: ${before.join(', ')}`).toBeTruthy();
  await grid(page).focus();
  await page.keyboard.press('ArrowLeft');
  await expect(grid(page)).toHaveAttribute('aria-activedescendant', 'library-cell-0');
  await expect(grid(page).locator('#library-cell-0').getByRole('img')).toHaveAccessibleName(second);
  await page.keyboard.press('Delete');
  const confirm = page.getByRole('dialog', { name: 'Delete this output?' });
  await expect(confirm).toContainText(second);
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(tile(page, second)).toHaveCount(0);
  await expect(tile(page, first)).toBeVisible();
  await expect.poll(() => existsSync(secondPath!)).toBe(false);
  expect(libraryFiles(harness.dataDir)).toHaveLength(before.length - 1);
  expect(pageErrors).toEqual([]);
});

test("the demo's video output plays inline from the library", async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, join(ROOT, 'resources/workflows/video-and-audio.json'));
  await page.getByRole('group', { name: '2 DemoVideo' }).waitFor();
  await runButton(page).click();
  await expect(newestJob(page).getByText('Status: done')).toBeVisible({ timeout: 30_000 });

  await page.getByRole('link', { name: 'Library' }).click();
  await page.getByLabel('Type').selectOption('video');
  const video = grid(page).getByRole('img').first();
  await expect(video).toBeVisible({ timeout: 20_000 });
  // No thumbnail request for a video: the tile is its type icon, still named by the file name.
  expect(await video.getAttribute('src')).toMatch(/^data:image\/svg\+xml,/);
  const name = (await video.getAttribute('alt')) ?? '';
  expect(name).toMatch(/\.(webm|mp4)$/);
  await video.click();
  const player = page.getByRole('complementary', { name }).locator('video');
  await expect(player).toHaveAttribute('src', /^\/media\/file\/\d+$/);
  await expect(player).toHaveAttribute('controls', '');
  const played = await player.evaluate(async (element) => {
    const media = element as unknown as {
      muted: boolean;
      play(): Promise<void>;
      currentTime: number;
      readyState: number;
      addEventListener(n: string, f: () => void): void;
    };
    media.muted = true;
    const playing = new Promise<boolean>((resolve) => media.addEventListener('playing', () => resolve(true)));
    await media.play();
    return playing;
  });
  expect(played).toBe(true);
  await expect.poll(() => player.evaluate((el) => (el as unknown as { readyState: number }).readyState)).toBeGreaterThanOrEqual(2);
  await expect.poll(() => player.evaluate((el) => (el as unknown as { currentTime: number }).currentTime)).toBeGreaterThan(0);
});

test('a library image opens in the mask painter', async ({ appPage: page }) => {
  await waitConnected(page);
  const file = await runForImage(page, 'a red kite over the dunes', 303);
  await page.getByRole('link', { name: 'Library' }).click();
  await tile(page, file).click();
  const detail = page.getByRole('complementary', { name: file });
  await detail.getByRole('button', { name: 'Open in mask painter' }).click();
  const painter = page.getByRole('dialog', { name: `Paint mask — ${file}` });
  await expect(painter).toBeVisible();
  await expect(painter.getByText('Not on the server yet: saving uploads the image, then the mask.')).toBeVisible();
  await expect(painter.locator('canvas').first()).toBeVisible();
  await painter.getByRole('button', { name: 'Close' }).click();
  await expect(painter).toBeHidden();
});

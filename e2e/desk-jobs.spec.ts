// The Jobs panel (issue 13): plain status words, origin, start time and duration, compact finished
// cards that open on demand, filters by state and origin, "Clear finished", a panel that scrolls
// within itself rather than growing the page, and tracebacks that wrap inside the card.
import { test, expect } from './fixtures/index';
import { field, openWorkflow, runButton, textToImage, waitConnected, unfoldRuns } from './ui-helpers';

test('finished jobs read plainly, collapse to compact rows, filter, and clear', async ({ appPage: page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await waitConnected(page);
  await openWorkflow(page, textToImage({ steps: 2, delay_ms: 0 }));
  await field(page, '3 DemoSampler', 'steps').waitFor();
  await page.getByLabel('Repeat', { exact: true }).fill('8');
  await runButton(page).click();
  const panel = page.getByRole('region', { name: 'Jobs' });
  // The eight runs are one group, "8 runs, N done", that unfolds to a card per run.
  await expect(panel.getByText(/^8 runs, \d+ done$/)).toBeVisible({ timeout: 15_000 });
  await unfoldRuns(page);
  const cards = panel.getByRole('article');
  await expect(cards).toHaveCount(8, { timeout: 15_000 });
  await expect(cards.filter({ hasText: 'Status: done' })).toHaveCount(8, { timeout: 60_000 });

  // No protocol words; origin, start and duration instead.
  await expect(panel).not.toContainText('execution_success');
  await expect(panel).not.toContainText('(');
  const newest = cards.first();
  await expect(newest.getByText('from this window')).toBeVisible();
  await expect(newest.getByText(/^waited \d+ s · ran \d+ s$/)).toBeVisible();
  await expect(newest.getByText(/^started /)).toBeVisible();

  // The newest finished job is open; older ones are compact rows that still show their thumbnail.
  const details = (card: typeof newest) => card.getByRole('button', { name: /^Details of / });
  await expect(details(newest)).toHaveAttribute('aria-expanded', 'true');
  const older = cards.nth(3);
  await expect(details(older)).toHaveAttribute('aria-expanded', 'false');
  await expect(older.getByRole('progressbar')).toHaveCount(0);
  await expect(older.getByRole('img', { name: /^Output / })).toBeVisible();
  const compactHeight = (await older.boundingBox())!.height;
  expect(compactHeight).toBeLessThan(110);
  await details(older).click();
  await expect(details(older)).toHaveAttribute('aria-expanded', 'true');
  await expect(older.getByRole('progressbar', { name: 'Overall progress' })).toBeVisible();

  // The page does not grow with the jobs: the panel scrolls within itself.
  const panelBox = (await panel.boundingBox())!;
  expect(panelBox.height).toBeLessThanOrEqual(800);
  const list = await panel.locator('.list').evaluate((el) => ({ scroll: el.scrollHeight, client: el.clientHeight }));
  expect(list.scroll).toBeGreaterThan(list.client);
  await page.screenshot({ path: 'screenshots/jobs-1280x800.png' });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: 'screenshots/jobs-dark-1280x800.png' });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 800, height: 600 });
  await page.screenshot({ path: 'screenshots/jobs-800x600.png' });
  await page.setViewportSize({ width: 1280, height: 800 });

  // Filters by state and origin.
  await page.getByLabel('Show jobs by state').selectOption('failed');
  await expect(cards).toHaveCount(0);
  await expect(panel.getByText('No job matches these filters.')).toBeVisible();
  await page.getByLabel('Show jobs by state').selectOption('finished');
  await expect(cards).toHaveCount(8);
  await page.getByLabel('Show jobs by origin').selectOption('hot-folder');
  await expect(cards).toHaveCount(0);
  await page.getByLabel('Show jobs by origin').selectOption('window');
  await expect(cards).toHaveCount(8);
  await page.getByLabel('Show jobs by state').selectOption('all');
  await page.getByLabel('Show jobs by origin').selectOption('all');

  await panel.getByRole('button', { name: 'Clear finished' }).click();
  await expect(cards).toHaveCount(0);
  await expect(panel.getByRole('button', { name: 'Clear finished' })).toBeDisabled();
  // Cleared stays cleared when the window reloads (the History view still lists them).
  await page.reload();
  await waitConnected(page);
  await expect(page.getByRole('region', { name: 'Jobs' }).getByText('No jobs yet.', { exact: false })).toBeVisible();
});

test('a traceback wraps inside the card and never widens the page', async ({ appPage: page }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  await waitConnected(page);
  await openWorkflow(page, textToImage({ fail_at_step: 1, prompt: 'x'.repeat(600) }));
  await field(page, '3 DemoSampler', 'steps').waitFor();
  await runButton(page).click();
  const card = page.getByRole('region', { name: 'Jobs' }).getByRole('article').first();
  await expect(card.getByText('Status: failed')).toBeVisible({ timeout: 20_000 });
  await card.getByText('Traceback', { exact: true }).click();
  await expect(card.locator('pre')).toBeVisible();
  const widths = await page.locator('html').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  expect(widths.scroll).toBeLessThanOrEqual(widths.client);
  const pre = await card.locator('pre').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  expect(pre.scroll).toBeLessThanOrEqual(pre.client);
  // Whatever the server sends, long lines wrap (even one unbroken word): set the longest line there is.
  await card.locator('pre').evaluate((el) => void (el.textContent = `Traceback:\n  File "${'x'.repeat(3000)}", line 1\n`));
  const wrapped = await card.locator('pre').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  expect(wrapped.scroll).toBeLessThanOrEqual(wrapped.client);
  const page2 = await page.locator('html').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  expect(page2.scroll).toBeLessThanOrEqual(page2.client);
  await page.screenshot({ path: 'screenshots/jobs-failure-800x600.png' });
});

test('a hot-folder job says where it came from, and the library finds its output by the input file name', async ({ appPage: page }) => {
  test.setTimeout(90_000);
  const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { PNG } = await import('pngjs');
  const root = mkdtempSync(join(tmpdir(), 'flowdeck-desk-hot-'));
  try {
    const inputDir = join(root, 'in');
    mkdirSync(inputDir);
    await waitConnected(page);
    const workflow = {
      '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
      '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'hot' } },
    };
    const saved = await page.evaluate((input) => window.flowdeck.invoke('hotFolders.save', input), {
      name: 'Holiday',
      inputDir,
      outputDir: join(root, 'out'),
      workflowJson: JSON.stringify(workflow),
      workflowName: 'invert.json',
      bind: '1.image',
      settleMs: 0,
    });
    expect(saved.ok).toBe(true);
    const png = new PNG({ width: 4, height: 4 });
    png.data.fill(200);
    writeFileSync(join(inputDir, 'zanzibar-beach.png'), PNG.sync.write(png));

    await page.getByRole('link', { name: 'Run', exact: true }).click();
    await page.getByLabel('Show jobs by origin').selectOption('hot-folder');
    const card = page.getByRole('region', { name: 'Jobs' }).getByRole('article').first();
    await expect(card.getByText('from hot folder')).toBeVisible({ timeout: 30_000 });
    await expect(card.getByText('Status: done')).toBeVisible({ timeout: 30_000 });
    await page.getByLabel('Show jobs by origin').selectOption('window');
    await expect(page.getByRole('region', { name: 'Jobs' }).getByText('from hot folder')).toHaveCount(0);
    await page.getByLabel('Show jobs by origin').selectOption('all');

    // The library finds the output by its input file's name; a symbol-only query finds nothing here.
    await page.getByRole('link', { name: 'Library' }).click();
    const grid = page.getByRole('grid', { name: 'Library outputs' });
    const search = page.getByRole('searchbox', { name: 'Search library' });
    await expect(grid.getByRole('gridcell').first()).toBeVisible({ timeout: 20_000 });
    await search.fill('zanzibar');
    await expect(grid.getByRole('gridcell')).toHaveCount(1, { timeout: 10_000 });
    await expect(grid.getByRole('img', { name: /^hot.*\.png$/ })).toBeVisible();
    await search.fill('🌅');
    await expect(grid.getByRole('gridcell')).toHaveCount(0);
    await expect(page.getByText('No outputs match.', { exact: false })).toBeVisible();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

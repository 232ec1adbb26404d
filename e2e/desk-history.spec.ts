// The History view (issue 13): past jobs from the app's journal, newest first with their outputs
// (opening the image viewer), paged, and "Open in Run" restoring the workflow and its inputs exactly
// (a seed of 2^64-1 keeps every digit). The server's own list comes from the built-in demo, a
// cloud-flavoured server: its GET /api/jobs, paged, with the same exact workflows.
import { test, expect } from './fixtures/index';
import { field, openWorkflow, runOpenWorkflow, textToImage, waitConnected, unfoldRuns } from './ui-helpers';

const MAX_SEED = '18446744073709551615';

test('past jobs are listed with outputs, paged, and open in Run exactly as they ran', async ({ appPage: page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await waitConnected(page);
  // 21 jobs: one page of 20 and a second page.
  await openWorkflow(page, textToImage({ steps: 1, delay_ms: 0, prompt: 'an old harbour' }));
  await field(page, '3 DemoSampler', 'steps').waitFor();
  await page.getByLabel('Repeat', { exact: true }).fill('20');
  await page.getByRole('checkbox', { name: 'New seed for each repeat' }).uncheck();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await unfoldRuns(page);
  const cards = page.getByRole('region', { name: 'Jobs' }).getByRole('article');
  await expect(cards.filter({ hasText: 'Status: done' })).toHaveCount(20, { timeout: 90_000 });
  await openWorkflow(page, textToImage({ steps: 1, delay_ms: 0, seed: 1, prompt: 'the newest one' }));
  // The file is read asynchronously: until it is, the form still shows the workflow before (same
  // node names), and a value typed there would be replaced by the new file's.
  await expect(field(page, '3 DemoSampler', 'prompt')).toHaveValue('the newest one');
  await field(page, '3 DemoSampler', 'seed').fill(MAX_SEED);
  await page.getByLabel('Repeat', { exact: true }).fill('1');
  await runOpenWorkflow(page);

  await page.getByRole('link', { name: 'History' }).click();
  const view = page.getByRole('region', { name: 'History' });
  await expect(view.getByRole('button', { name: 'Sent from this app' })).toHaveAttribute('aria-pressed', 'true');
  const rows = view.getByRole('article');
  await expect(rows).toHaveCount(20);
  const newest = rows.first();
  await expect(newest.getByText('Status: done')).toBeVisible();
  await expect(newest.getByText(/from this window/)).toBeVisible();
  const thumb = newest.getByRole('img', { name: /^Output / });
  await expect(thumb).toBeVisible();
  await page.screenshot({ path: 'screenshots/history-1280x800.png' });

  // Paging.
  const pages = view.getByRole('navigation', { name: 'History pages' });
  await pages.getByRole('button', { name: 'Older' }).click();
  await expect(rows).toHaveCount(1);
  await expect(pages.getByText('21–21')).toBeVisible();
  await pages.getByRole('button', { name: 'Newer' }).click();
  await expect(rows).toHaveCount(20);

  // A thumbnail opens the viewer.
  await rows
    .first()
    .getByRole('img', { name: /^Output / })
    .click();
  const viewer = page.getByRole('dialog', { name: 'Image viewer' });
  await expect(viewer).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(viewer).toBeHidden();

  // Open an older one first (its prompt differs), then the newest: the inputs are as they ran.
  await rows
    .nth(1)
    .getByRole('button', { name: /^Open .* in Run$/ })
    .click();
  await expect(page.getByRole('link', { name: 'Run', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(field(page, '3 DemoSampler', 'prompt')).toHaveValue('an old harbour');
  await page.getByRole('link', { name: 'History' }).click();
  await view
    .getByRole('article')
    .first()
    .getByRole('button', { name: /^Open .* in Run$/ })
    .click();
  await expect(page.getByText(/Loaded ".*" from the history/)).toBeVisible();
  await expect(field(page, '3 DemoSampler', 'seed')).toHaveValue(MAX_SEED);
  await expect(field(page, '3 DemoSampler', 'prompt')).toHaveValue('the newest one');

  // The server's own list: the demo (a cloud) answers GET /api/jobs; the newest job is there, as it ran.
  await page.getByRole('link', { name: 'History' }).click();
  // The page on show stays until the next one has come (the list is busy meanwhile).
  const settled = (): Promise<void> => expect(view.locator('[aria-busy]')).toHaveAttribute('aria-busy', 'false');
  await view.getByRole('button', { name: "The server's history" }).click();
  await settled();
  await expect(rows).toHaveCount(20);
  await expect(rows.first().getByText(/from this window/)).toBeVisible();
  await pages.getByRole('button', { name: 'Older' }).click();
  await settled();
  await expect(rows).toHaveCount(1);
  await pages.getByRole('button', { name: 'Newer' }).click();
  await settled();
  await expect(rows).toHaveCount(20);
  await rows
    .first()
    .getByRole('button', { name: /^Open .* in Run$/ })
    .click();
  await expect(field(page, '3 DemoSampler', 'seed')).toHaveValue(MAX_SEED);
  await page.getByRole('link', { name: 'History' }).click();
  await page.setViewportSize({ width: 800, height: 600 });
  await view.getByRole('button', { name: 'Sent from this app' }).click();
  await expect(rows).toHaveCount(20);
  await page.screenshot({ path: 'screenshots/history-800x600.png' });
});

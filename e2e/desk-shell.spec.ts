// The desk's shell, by accessible name: the navigation rail and the status bar, the window title
// carrying progress, the theme (dark by default, light on demand, remembered), the sample
// workflows on the first screen, the shortcuts (Ctrl+O, ?), and the notification centre.
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures/index';
import { openWorkflow, runButton, textToImage, waitConnected } from './ui-helpers';

function backgroundOf(page: Page): Promise<string> {
  return page.evaluate(() => {
    const g = globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string }; document: { documentElement: unknown } };
    return g.getComputedStyle(g.document.documentElement).backgroundColor;
  });
}

test('the rail, the status bar and the window title show where things are', async ({ appPage: page }) => {
  await waitConnected(page);
  const rail = page.getByRole('navigation', { name: 'Main' });
  for (const name of ['Run', 'Queue', 'Library', 'Hot folders', 'Servers']) {
    const link = rail.getByRole('link', { name, exact: true });
    await expect(link).toBeVisible();
    // Each link carries an icon beside its label.
    await expect(link.locator('svg')).toHaveCount(1);
  }
  const bar = page.getByRole('contentinfo', { name: 'Status bar' });
  await expect(bar).toContainText('Demo');
  await expect(bar.getByRole('status', { name: 'Connection' })).toHaveText(/Connected/);
  await expect(bar.getByLabel('Jobs on the server')).toHaveText(/0\s*running\s*0\s*pending/);
  await expect(page).toHaveTitle('Flowdeck');

  // A slow job: the title and the status bar count it while it runs, and let go when it ends.
  await openWorkflow(page, textToImage({ steps: 30, delay_ms: 2000 }));
  await runButton(page).click();
  // Watched (the page has the focus): the stage shows the percentage, the title only the count.
  await expect(page).toHaveTitle('1 running — Flowdeck', { timeout: 15_000 });
  await expect(bar.getByLabel('Jobs on the server')).toHaveText(/1\s*running/);
  // Another window takes the focus: the title carries the percentage, at once.
  await page.evaluate(() => (window as unknown as EventTarget).dispatchEvent(new Event('blur')));
  await expect(page).toHaveTitle(/^1 running · \d+% — Flowdeck$/, { timeout: 3_000 });
  await page.evaluate(() => (window as unknown as EventTarget).dispatchEvent(new Event('focus')));
  await expect(page).toHaveTitle('1 running — Flowdeck', { timeout: 3_000 });
  await page
    .getByRole('region', { name: 'Jobs' })
    .getByRole('button', { name: /^Cancel/ })
    .first()
    .click();
  await expect(page).toHaveTitle('Flowdeck', { timeout: 20_000 });
});

test('follows the system (dark unless it asks for light), light on demand, and the choice is remembered', async ({ appPage: page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'system');
  const dark = await backgroundOf(page);
  // A browser asking for light gets light while the choice is "system"...
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await backgroundOf(page);
  expect(light).not.toBe(dark);

  await page.getByRole('button', { name: 'Theme' }).click();
  await page.getByRole('menuitemradio', { name: 'Light theme' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(await backgroundOf(page)).toBe(light);
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(await backgroundOf(page)).toBe(light);
  // The menu works from the keyboard too: arrows move, Enter chooses, focus goes back.
  const theme = page.getByRole('button', { name: 'Theme' });
  await theme.click();
  await expect(page.getByRole('menuitemradio', { name: 'System theme' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('menuitemradio', { name: 'Dark theme' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(theme).toBeFocused();
  // Forced dark holds while the browser asks for light.
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await backgroundOf(page)).toBe(dark);
});

test('the first screen offers the sample workflows, and one opens with a click', async ({ appPage: page }) => {
  await waitConnected(page);
  await expect(page.getByRole('heading', { name: 'Start with a sample workflow' })).toBeVisible();
  await page.getByRole('button', { name: 'Open sample: Text to image' }).click();
  await expect(page.getByRole('group', { name: '3 DemoSampler' })).toBeVisible();
  // With a workflow open, the samples make room for its form.
  await expect(page.getByRole('heading', { name: 'Start with a sample workflow' })).toHaveCount(0);
});

test('Ctrl+O opens the workflow chooser from any view, ? lists the shortcuts', async ({ appPage: page }) => {
  await waitConnected(page);
  await page.getByRole('link', { name: 'Library' }).click();
  const chooser = page.waitForEvent('filechooser');
  await page.keyboard.press('Control+o');
  await (await chooser).setFiles({ name: 'slow.json', mimeType: 'application/json', buffer: Buffer.from(textToImage({}).text) });
  await expect(page.getByRole('link', { name: 'Run', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('group', { name: '3 DemoSampler' })).toBeVisible();

  // "?" in a text field is just a character; elsewhere it opens the list.
  const prompt = page.getByRole('group', { name: '3 DemoSampler' }).getByLabel('prompt', { exact: true });
  await prompt.fill('');
  await prompt.press('?');
  await expect(prompt).toHaveValue('?');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toHaveCount(0);
  await page.getByRole('heading', { name: 'Run a workflow' }).click();
  await page.keyboard.press('?');
  const list = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(list).toBeVisible();
  await expect(list).toContainText('Open a workflow');
  await expect(list).toContainText('Run the open workflow');
  await page.keyboard.press('Escape');
  await expect(list).toHaveCount(0);
  // The status bar's button opens it too.
  await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
  await expect(list).toBeVisible();
  await list.getByRole('button', { name: 'Close' }).click();
  await expect(list).toHaveCount(0);
});

test('the notification centre counts new notices and keeps past ones', async ({ appPage: page }) => {
  await waitConnected(page);
  const bell = page.getByRole('button', { name: 'Notifications' });
  await expect(bell).toHaveAccessibleDescription('no new notices');
  await bell.click();
  const centre = page.getByRole('dialog', { name: 'Notifications' });
  await expect(centre).toContainText('No notices yet');
  await centre.getByRole('button', { name: 'Done' }).click();

  // Removing a server raises a notice; the count goes up, the centre lists it even once dismissed.
  await page.getByRole('link', { name: 'Servers' }).click();
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add server' });
  await dialog.getByLabel('Server name').fill('Spare');
  await dialog.getByLabel('Server kind').selectOption('demo');
  await dialog.getByRole('button', { name: 'Save server' }).click();
  await expect(page.getByRole('radio', { name: 'Spare' })).toBeChecked();
  await page.getByRole('button', { name: 'Remove Spare' }).click();
  await page.getByRole('dialog', { name: 'Remove server?' }).getByRole('button', { name: 'Remove server' }).click();
  await expect(bell).toHaveAccessibleDescription('1 new');
  await bell.click();
  await expect(centre.getByRole('list', { name: 'Past notices' }).getByRole('listitem')).toHaveCount(1);
  await expect(centre).toContainText('Removed "Spare"');
  await centre.getByRole('button', { name: 'Close' }).click();
  await expect(bell).toHaveAccessibleDescription('no new notices');
});

// Small things that cost trust (issue 21): the bell counts the notices it lists (saving a new
// server and its key once threw effect_update_depth_exceeded and ran the count to "99+"), "?"
// lists the viewer's and the mask painter's shortcuts too, the rail's Queue link says how many jobs
// wait, and a focused field is never under the sticky Run bar.
import { expect, test } from './fixtures/index';
import { field, openWorkflow, runButton, textToImage, waitConnected } from './ui-helpers';

test('"?" lists every shortcut, the viewer\'s and the mask painter\'s included', async ({ appPage: page }) => {
  await waitConnected(page);
  await page.keyboard.press('?');
  const list = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  for (const section of ['Everywhere', 'Model and long choice pickers', 'Library', 'Image viewer', 'Mask painter'])
    await expect(list.getByRole('table', { name: section })).toBeVisible();
  for (const what of [
    'Next output',
    'Fit to the window',
    'Smaller brush',
    'Larger brush',
    'Invert the mask',
    'Undo',
    'Eraser',
    'Choose the highlighted one',
    'Open the selected item',
  ])
    await expect(list).toContainText(what);
});

test('the rail says how many jobs wait, and a focused field is not under the Run bar at 800×600', async ({ appPage: page }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  await waitConnected(page);
  await openWorkflow(page, textToImage({ steps: 200, delay_ms: 10000 }));
  await page.getByLabel('Repeat', { exact: true }).fill('3');
  await runButton(page).click();
  await expect(page.getByRole('link', { name: 'Queue, 2 waiting' })).toBeVisible({ timeout: 15_000 });

  // Tab into a field near the bottom of the form: it scrolls clear of the sticky bar.
  const filename = field(page, '9 SaveImage', 'filename_prefix');
  await filename.focus();
  const box = (await filename.boundingBox())!;
  const bar = (await runButton(page).locator('..').boundingBox())!;
  expect(box.y + box.height).toBeLessThanOrEqual(bar.y);

  await page.getByRole('link', { name: 'Queue, 2 waiting' }).click();
  // Every waiting job with its name, its place and its own Cancel.
  const pending = page.getByRole('group', { name: /^Pending/ });
  await expect(pending.getByText('1st in line')).toBeVisible();
  await expect(pending.getByRole('button', { name: /^Cancel a lighthouse at dusk, oil painting · seed \d+$/ })).toHaveCount(2);
  await pending
    .getByRole('button', { name: /^Cancel / })
    .first()
    .click();
  await expect(page.getByRole('link', { name: 'Queue, 1 waiting' })).toBeVisible({ timeout: 15_000 });
  await page.getByRole('button', { name: 'Clear pending' }).click();
  await page.getByRole('button', { name: 'Interrupt' }).click();
  await expect(page.getByRole('link', { name: 'Queue', exact: true })).toBeVisible({ timeout: 15_000 });
});

test('"Add server" guesses the kind from the address and does not switch to a keyless cloud server', async ({ appPage: page }) => {
  await waitConnected(page);
  await page.getByRole('link', { name: 'Servers' }).click();
  await expect(page.getByRole('radio', { name: 'Demo' })).toBeChecked();
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add server' });
  await dialog.getByLabel('Server name').fill('Studio PC');
  await dialog.getByLabel('Server URL').fill('http://192.168.1.20:8188');
  await expect(dialog.getByLabel('Server kind')).toHaveValue('local');
  await expect(dialog.getByLabel('Use this server now')).toBeChecked();
  await dialog.getByLabel('Server URL').fill('https://cloud.example.com');
  await expect(dialog.getByLabel('Server kind')).toHaveValue('cloud');
  await expect(dialog.getByLabel('Use this server now')).not.toBeChecked();
  await expect(dialog.getByText('A cloud server needs its API key first')).toBeVisible();
  await dialog.getByRole('button', { name: 'Save server' }).click();
  await expect(dialog).toHaveCount(0);
  // Saved, and the active server is still the one that answers.
  await expect(page.getByRole('radio', { name: 'Studio PC' })).not.toBeChecked();
  await expect(page.getByRole('radio', { name: 'Demo' })).toBeChecked();
  await waitConnected(page);
});

// Last in the file: it leaves an unreachable server active.
test('the bell counts exactly the notices it lists, through a new keyless server and its key', async ({ appPage: page }) => {
  await waitConnected(page);
  await page.getByRole('link', { name: 'Servers' }).click();
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add server' });
  await dialog.getByLabel('Server name').fill('Cloud account');
  await dialog.getByLabel('Server kind').selectOption('cloud');
  await dialog.getByLabel('Server URL').fill('https://cloud.example.invalid');
  await dialog.getByRole('button', { name: 'Save server' }).click();
  await page.getByRole('radio', { name: 'Cloud account' }).check();
  await page.getByLabel('API key', { exact: true }).fill('fd-test-key-0000000000001234');
  await page.getByRole('button', { name: 'Save key' }).click();
  await expect(page.getByText('ending in 1234')).toBeVisible();
  await page.waitForTimeout(1000);

  const bell = page.getByRole('button', { name: 'Notifications' });
  const description = (await bell.getAttribute('aria-describedby'))!;
  const said = (await page.locator(`#${description}`).textContent())!.trim();
  const count = said === 'no new notices' ? 0 : Number(/^(\d+) new$/.exec(said)?.[1]);
  expect(Number.isInteger(count)).toBe(true);
  expect(count).toBeLessThan(10);
  await bell.click();
  const list = page.getByRole('dialog', { name: 'Notifications' });
  await expect(list).toBeVisible();
  await expect(list.getByRole('listitem')).toHaveCount(count);
});

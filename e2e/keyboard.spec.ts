// Keyboard use: the navigation by Tab and Enter with a visible focus ring, the server dialog
// closed by Escape (focus returns to "Add server"), "randomize" by Space, and Run by Ctrl+Enter.
import { test, expect } from './fixtures/index';
import { field, newestJob, openWorkflow, textToImage, waitConnected } from './ui-helpers';

test('navigation, dialogs and the form work from the keyboard', async ({ appPage: page }) => {
  await waitConnected(page);
  // The first Tab stop is the navigation; focus is visibly ringed.
  await page.keyboard.press('Tab');
  const run = page.getByRole('link', { name: 'Run', exact: true });
  await expect(run).toBeFocused();
  const outline = await run.evaluate((el) => {
    const style = (globalThis as unknown as { getComputedStyle(e: unknown): { outlineStyle: string; outlineWidth: string } }).getComputedStyle(el);
    return `${style.outlineStyle} ${style.outlineWidth}`;
  });
  expect(outline).not.toMatch(/^none|\b0px/);
  // Run, Queue, History, Library, Hot folders, Servers: one Tab per link.
  for (let i = 0; i < 5; i += 1) await page.keyboard.press('Tab');
  const servers = page.getByRole('link', { name: 'Servers' });
  await expect(servers).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(servers).toHaveAttribute('aria-current', 'page');

  // The dialog opens with Enter on "Add server" and closes with Escape, giving focus back.
  const add = page.getByRole('button', { name: 'Add server' });
  await add.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Add server' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Server name')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(add).toBeFocused();

  // "randomize" with Space puts a new seed in the field; Ctrl+Enter runs.
  await openWorkflow(page, textToImage({ seed: 42 }));
  const seed = field(page, '3 DemoSampler', 'seed');
  await page.getByRole('group', { name: '3 DemoSampler' }).getByRole('button', { name: 'randomize' }).focus();
  await page.keyboard.press('Space');
  await expect(seed).not.toHaveValue('42');
  await expect(seed).toHaveValue(/^\d+$/);
  await seed.focus();
  await page.keyboard.press('Control+Enter');
  await expect(newestJob(page)).toBeVisible();
  await expect(newestJob(page).getByText('Status: done')).toBeVisible({ timeout: 20_000 });
});

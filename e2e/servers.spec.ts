// Server profiles: add (with the address checked by main), edit, choose the active one, remove.
import { test, expect } from './fixtures/index';

test('profiles are added, edited, selected and removed', async ({ appPage: page }) => {
  await page.getByRole('link', { name: 'Servers' }).click();
  await expect(page.getByRole('radio', { name: 'Demo' })).toBeChecked();

  // A local server; an address main refuses is reported in the dialog.
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add server' });
  await dialog.getByLabel('Server name').fill('Workstation');
  await dialog.getByLabel('Server kind').selectOption('local');
  await expect(dialog.getByLabel('Server URL')).toHaveValue('http://127.0.0.1:8188');
  await dialog.getByLabel('Server URL').fill('ftp://127.0.0.1:8188');
  await dialog.getByLabel('Use this server now').uncheck();
  await dialog.getByRole('button', { name: 'Save server' }).click();
  await expect(dialog.getByRole('alert')).toBeVisible();
  await dialog.getByLabel('Server URL').fill('http://127.0.0.1:8188');
  await dialog.getByRole('button', { name: 'Save server' }).click();
  await expect(dialog).toHaveCount(0);
  const workstation = page.getByRole('radio', { name: 'Workstation' });
  await expect(workstation).not.toBeChecked();
  await expect(page.getByRole('radio', { name: 'Demo' })).toBeChecked();

  // Edit it.
  await page.getByRole('button', { name: 'Edit Workstation' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Workstation' });
  await expect(edit.getByLabel('Server kind')).toHaveValue('local');
  await edit.getByLabel('Server name').fill('Studio box');
  await edit.getByRole('button', { name: 'Save server' }).click();
  await expect(page.getByRole('radio', { name: 'Studio box' })).toBeVisible();
  await expect(workstation).toHaveCount(0);

  // Choose it, then go back to the demo, then remove it.
  await page.getByRole('radio', { name: 'Studio box' }).check();
  await expect(page.getByRole('heading', { name: 'API key for Studio box' })).toBeVisible();
  await expect(page.getByRole('contentinfo', { name: 'Status bar' })).toContainText('Studio box');
  await page.getByRole('radio', { name: 'Demo' }).check();
  await expect(page.getByRole('heading', { name: 'API key for Demo' })).toBeVisible();
  await expect(page.getByText('The built-in demo service uses its own key')).toBeVisible();
  // Removing asks first.
  await page.getByRole('button', { name: 'Remove Studio box' }).click();
  await page.getByRole('dialog', { name: 'Remove server?' }).getByRole('button', { name: 'Remove server' }).click();
  await expect(page.getByRole('radio', { name: 'Studio box' })).toHaveCount(0);
  await expect(page.getByRole('status', { name: 'Connection' })).toHaveText(/Connected/, { timeout: 20_000 });
});

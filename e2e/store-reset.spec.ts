// A damaged local store (random bytes as the SQLite file): the app starts on a fresh one and tells
// the user in the notification centre, once, even though main repeats the notice to every window
// that becomes ready (a reload here).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from './fixtures/index';

const dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-e2e-damaged-'));
writeFileSync(join(dataDir, 'flowdeck.sqlite'), randomBytes(16 * 1024));
test.use({ harnessOptions: { dataDir } });

test('a damaged store is moved aside, a fresh one starts, and the notification centre says so once', async ({ appPage: page }) => {
  const bell = page.getByRole('button', { name: 'Notifications' });
  await expect(bell).toHaveAccessibleDescription('1 new');
  await bell.click();
  const centre = page.getByRole('dialog', { name: 'Notifications' });
  const past = centre.getByRole('list', { name: 'Past notices' }).getByRole('listitem');
  await expect(past).toHaveCount(1);
  await expect(past.first()).toContainText(/local data store was damaged.*moved aside/);
  expect(readdirSync(dataDir).some((name) => name.startsWith('flowdeck.sqlite.corrupt-'))).toBe(true);

  // The app works on the fresh store.
  await centre.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('link', { name: 'Library' }).click();
  await expect(page.getByRole('heading', { name: 'Library' })).toBeVisible();
});

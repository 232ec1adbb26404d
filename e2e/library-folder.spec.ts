// The library folder setting: the Library view shows where files are kept, refuses a folder it
// cannot use with the reason, and a chosen folder is the one the next start keeps outputs in.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './fixtures/index';
import { startHarness } from './fixtures/harness';

test('the library folder is shown, a bad one is refused, and a new one is used from the next start', async ({ page }) => {
  const work = mkdtempSync(join(tmpdir(), 'flowdeck-e2e-libdir-'));
  const dataDir = join(work, 'data');
  const chosen = join(work, 'My outputs');
  const notAFolder = join(work, 'a-file.txt');
  writeFileSync(notAFolder, 'not a folder');
  let harness = await startHarness({ dataDir });
  try {
    await page.goto(harness.url);
    await page.getByRole('link', { name: 'Library' }).click();
    await page.getByText('Library folder', { exact: true }).click();
    await expect(page.getByText(join(dataDir, 'library'), { exact: true })).toBeVisible();

    const field = page.getByRole('textbox', { name: 'New library folder' });
    await field.fill(notAFolder);
    await page.getByRole('button', { name: 'Use this folder' }).click();
    await expect(page.getByText(/not a folder/i)).toBeVisible();
    await expect(field).toHaveValue(notAFolder); // what was typed stays

    await field.fill(chosen);
    await page.getByRole('button', { name: 'Use this folder' }).click();
    await expect(page.getByRole('status').filter({ hasText: /next start/i })).toBeVisible();
    await expect(page.getByText(chosen, { exact: true })).toBeVisible();

    // The next start keeps its files there. The page leaves first: a page left on a stopped core
    // logs its failed attempts to reconnect.
    await page.goto('about:blank');
    await harness.stop();
    harness = await startHarness({ dataDir });
    await page.goto(harness.url);
    await page.getByRole('link', { name: 'Library' }).click();
    await page.getByText('Library folder', { exact: true }).click();
    await expect(page.locator('.folder-setting').getByText(chosen, { exact: true })).toBeVisible();
    const info = await page.evaluate(async () => (await window.flowdeck.invoke('library.info')) as { ok: boolean; value?: { libraryDir: string } });
    expect(info.value?.libraryDir).toBe(chosen);
  } finally {
    await harness.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

// Harness only: when the core process is gone, the page says so at once ("disconnected from
// Flowdeck's core"), offers to reload, and never shows "Connected" afterwards.
import { test, expect } from './fixtures/index';
import { waitConnected } from './ui-helpers';

test('the page says at once that the core is gone, and offers to reload', async ({ appPage: page, harness, pageErrors }) => {
  // The spec stops the core on purpose: the page's attempts to reach it again fail, and Chromium logs each.
  pageErrors.allow(/WebSocket connection to '.*__flowdeck\/ws.*' failed/, 'the core was stopped on purpose');
  await waitConnected(page);
  await expect(page.getByRole('alert').filter({ hasText: "disconnected from Flowdeck's core" })).toHaveCount(0);
  await harness.stop();
  const banner = page.getByRole('alert').filter({ hasText: "disconnected from Flowdeck's core" });
  // "At once": the socket's close is the signal, no polling interval to wait out.
  await expect(banner).toBeVisible({ timeout: 2000 });
  await expect(banner.getByRole('button', { name: 'Reload' })).toBeVisible();
  const indicator = page.getByRole('status', { name: 'Connection' });
  await expect(indicator).toHaveText(/Core lost/);
  // It stays that way while the page keeps trying to reach the core.
  await page.waitForTimeout(1500);
  await expect(indicator).not.toHaveText(/Connected/);
  await expect(banner).toBeVisible();
});

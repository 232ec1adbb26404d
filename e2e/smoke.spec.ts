// The page loads through the browser harness, and window.flowdeck answers over its WebSocket.
import { test, expect } from './fixtures/index';

test('the app loads through the harness and window.flowdeck answers profiles.list', async ({ appPage, harness }) => {
  const errors: string[] = [];
  appPage.on('pageerror', (e) => errors.push(e.message));
  const answer = await appPage.evaluate(() => window.flowdeck.invoke('profiles.list'));
  expect(answer.ok).toBe(true);
  if (!answer.ok) return;
  // A first start with no profile creates and selects the demo profile.
  expect(answer.value.profiles).toEqual([expect.objectContaining({ name: 'Demo', kind: 'demo' })]);
  expect(answer.value.activeProfileId).toBe(answer.value.profiles[0]?.id);
  // The bridge is the only thing exposed, and it cannot be replaced.
  const locked = await appPage.evaluate(() => {
    const before = window.flowdeck;
    try {
      (window as unknown as { flowdeck: unknown }).flowdeck = {};
    } catch {
      // strict-mode pages throw; sloppy ones ignore the write
    }
    return window.flowdeck === before && Object.isFrozen(window.flowdeck);
  });
  expect(locked).toBe(true);
  expect(harness.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+$/);
  expect(errors).toEqual([]);
});

test('without the token the page is refused', async ({ page, harness, pageErrors }) => {
  // The refusal is the point: Chromium logs the 403 it gets.
  pageErrors.allow(/status of 403 \(Forbidden\)/, 'the page is refused on purpose');
  // The refusal has no page, so no icon link: Chromium asks for /favicon.ico, which is refused too.
  pageErrors.allow(/status of 404 \(Not Found\)/, 'the refused page has no icon link');
  const response = await page.goto(harness.origin + '/');
  expect(response?.status()).toBe(403);
});

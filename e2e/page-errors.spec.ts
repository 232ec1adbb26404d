// The page-error fixture itself (e2e/fixtures/page-errors.ts): an uncaught error or a console error
// in the page fails the spec, and a declared one does not. Uses the app page, so the harness's
// real page is what is watched.
import { expect, test } from './fixtures/index';

test.describe('a page error fails the spec', () => {
  // Marked as expected to fail: the fixture must turn the page's error into a failure.
  test.fail();

  test('a console error', async ({ appPage: page }) => {
    await page.evaluate(() => console.error('flowdeck-e2e: a console error on purpose'));
  });

  test('an uncaught error', async ({ appPage: page }) => {
    await page.evaluate(() =>
      setTimeout(() => {
        throw new Error('flowdeck-e2e: thrown on purpose');
      }, 0),
    );
    await page.waitForTimeout(100);
  });
});

test('a declared error does not fail the spec, and is the only one allowed', async ({ appPage: page, pageErrors }) => {
  pageErrors.allow(/flowdeck-e2e: declared/, 'this spec logs it on purpose');
  await page.evaluate(() => console.error('flowdeck-e2e: declared'));
  await expect.poll(() => pageErrors.unexpected().length).toBe(0);
  await page.evaluate(() => console.error('flowdeck-e2e: not declared'));
  await expect.poll(() => pageErrors.unexpected().map((e) => e.text)).toEqual(['flowdeck-e2e: not declared']);
  // Declared after the fact for this check only: the fixture's own check then passes.
  pageErrors.allow(/flowdeck-e2e: not declared/, 'checked just above');
});

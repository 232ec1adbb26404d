// The server's node definitions are read again when they may be out of date: the Run form's
// "Refresh" button, and a chosen value that is not on the server (installed since?), once per value.
import type { Page } from '@playwright/test';
import { test, expect, type RunningHarness } from './fixtures/index';
import { openWorkflow, textToImage, waitConnected } from './ui-helpers';

/** Opens the app and counts the "nodes.definitions" calls asking for a refresh (frames of the bridge socket). */
async function openCounting(page: Page, harness: RunningHarness): Promise<() => number> {
  let count = 0;
  page.on('websocket', (ws) => {
    ws.on('framesent', (frame) => {
      const text = typeof frame.payload === 'string' ? frame.payload : frame.payload.toString('utf8');
      if (text.includes('"nodes.definitions"') && /"refresh":\s*true/.test(text)) count += 1;
    });
  });
  await page.goto(harness.url);
  await page.waitForFunction(() => typeof (window as { flowdeck?: unknown }).flowdeck === 'object');
  return () => count;
}

test('"Refresh" in the Run form reads the definitions again', async ({ page, harness }) => {
  const refreshCalls = await openCounting(page, harness);
  await waitConnected(page);
  await openWorkflow(page, textToImage({}));
  const form = page.getByRole('form', { name: 'Workflow inputs' });
  await expect(form.getByRole('group', { name: '3 DemoSampler' })).toBeVisible();
  expect(refreshCalls()).toBe(0);
  await form.getByRole('button', { name: 'Refresh' }).click();
  await expect.poll(refreshCalls).toBe(1);
  await expect(form.getByRole('button', { name: 'Refresh' })).toBeEnabled();
});

test('a chosen value that is not on the server makes the form read the definitions again, once', async ({ page, harness }) => {
  const refreshCalls = await openCounting(page, harness);
  await waitConnected(page);
  await openWorkflow(page, textToImage({ sampler_name: 'installed_later' }));
  await expect(page.getByRole('option', { name: 'installed_later (not on the server)' })).toHaveCount(1);
  await expect.poll(refreshCalls).toBe(1);
  // Still missing after the refresh: it is not asked for again.
  await page.waitForTimeout(300);
  expect(refreshCalls()).toBe(1);
});

/** The window regains focus (as when the user comes back to the app). */
async function focusWindow(page: Page): Promise<void> {
  await page.evaluate(() => (window as unknown as { dispatchEvent(event: Event): boolean }).dispatchEvent(new Event('focus')));
}

test('the window regaining focus after more than a minute reads the definitions again', async ({ page, harness }) => {
  await page.clock.install();
  const refreshCalls = await openCounting(page, harness);
  await waitConnected(page);
  await openWorkflow(page, textToImage({}));
  await expect(page.getByRole('group', { name: '3 DemoSampler' })).toBeVisible();
  // Soon after loading: focus changes nothing.
  await focusWindow(page);
  expect(refreshCalls()).toBe(0);
  await page.clock.fastForward(61_000);
  await focusWindow(page);
  await expect.poll(refreshCalls).toBe(1);
});

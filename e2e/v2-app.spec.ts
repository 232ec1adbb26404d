// The app on a Comfy API v2-only server (the demo as a serverless deployment or a bare proxy: no
// node definitions, no queue, previews and outputs through per-job event streams): the Run form
// edits the workflow from its own values, a run shows its preview and then its output on the
// Result stage, the job says how long the server keeps its outputs, the Queue shows the jobs sent
// from here (saying so), and cancelling one of two jobs stops that one only, without the "stop all
// running jobs?" question.
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures/index';
import { field, newestJob, openWorkflow, previewFingerprint, runButton, textToImage, waitConnected } from './ui-helpers';

const TOKEN = 'e2e-proxy-token-51c3a0';

test.use({ harnessOptions: { args: ['--v2-demo', 'Deployment', '--v2-token', TOKEN] } });

/** A self-hosted proxy added in Servers as a user would, made the active server. */
async function addProxy(page: Page, name: string, address: string): Promise<void> {
  await page.getByRole('link', { name: 'Servers' }).click();
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add server' });
  await dialog.getByLabel('Server name').fill(name);
  await dialog.getByLabel('Server kind').selectOption('proxy');
  await dialog.getByLabel('Server URL').fill(address);
  await expect(dialog.getByLabel('Server API URL (optional)')).toHaveValue('');
  // A proxy takes no key unless its server asks: nothing here says one is needed.
  await expect(dialog).not.toContainText(/API key/);
  await expect(dialog.getByLabel('Use this server now')).toBeChecked();
  await dialog.getByRole('button', { name: 'Save server' }).click();
  await expect(page.getByRole('radio', { name })).toBeChecked();
}

test('a run on a v2-only server shows its preview and then its output on the stage', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, textToImage({ steps: 6, delay_ms: 2400, prompt: 'a harbour at dawn' }));
  // No node definitions (so the active server is the v2-only one): said quietly, and the form
  // follows the workflow's own values and types.
  await expect(page.getByRole('status').filter({ hasText: 'This server has no node definitions' })).toBeVisible();
  await expect(field(page, '3 DemoSampler', 'prompt')).toHaveValue('a harbour at dawn');
  await expect(field(page, '3 DemoSampler', 'steps')).toHaveValue('6');
  await expect(page.getByRole('group', { name: '3 DemoSampler' }).getByRole('button', { name: 'randomize' })).toBeVisible();
  await expect(field(page, '9 SaveImage', 'images')).toHaveJSProperty('tagName', 'BUTTON');
  await field(page, '3 DemoSampler', 'steps').fill('5');

  await runButton(page).click();
  const stage = page.getByRole('region', { name: 'Result' });
  const preview = stage.getByRole('img', { name: 'Live preview' });
  await expect(preview).toBeVisible({ timeout: 15_000 });
  // The preview is a canvas (role img): drawn once a frame has come.
  await expect.poll(() => previewFingerprint(stage)).not.toBeNull();
  const output = stage.getByRole('img', { name: /^Result Flowdeck.*\.png$/ });
  await expect(output).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => output.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth)).toBe(256);

  const card = newestJob(page);
  await expect(card.getByText('Status: done')).toBeVisible();
  await expect(card.getByText(/^outputs kept until /)).toBeVisible();
});

test('cancelling one job stops that one only, running or waiting, without asking to stop all', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, textToImage({ steps: 40, delay_ms: 4000, prompt: 'a long night' }));
  const jobs = page.getByRole('region', { name: 'Jobs' }).getByRole('article');
  const before = await jobs.count();
  await runButton(page).click();
  await expect(jobs).toHaveCount(before + 1, { timeout: 15_000 });
  await expect(jobs.first().getByText('Status: running')).toBeVisible({ timeout: 15_000 });
  // Cards are told apart by their job (all have the same name; running ones are listed first).
  const byJob = (id: string | null) => page.locator(`article[data-prompt-id="${id}"]`);
  const running = byJob(await jobs.first().getAttribute('data-prompt-id'));
  await runButton(page).click();
  await expect(jobs).toHaveCount(before + 2, { timeout: 15_000 });
  await runButton(page).click();
  await expect(jobs).toHaveCount(before + 3, { timeout: 15_000 });
  const queued = jobs.filter({ hasText: 'Status: waiting in the queue' });
  await expect(queued).toHaveCount(2);
  const [waiting, last] = (await Promise.all((await queued.all()).map((c) => c.getAttribute('data-prompt-id')))).map(byJob) as [Locator, Locator];

  // The Queue says what it shows here: no server queue, the jobs sent from this app.
  await page.getByRole('link', { name: 'Queue' }).click();
  const queueView = page.getByRole('region', { name: 'Queue' });
  await expect(queueView.getByRole('note')).toHaveText(/no shared queue to read \(Comfy API v2\)/);
  await expect(queueView.getByRole('group', { name: 'Running (1)' })).toBeVisible();
  await expect(queueView.getByRole('group', { name: 'Pending (2)' })).toBeVisible();
  await expect(queueView).not.toContainText('Nothing is running on the server');
  await page.getByRole('link', { name: 'Run', exact: true }).click();

  // A waiting one is cancelled: the running one goes on.
  await waiting.getByRole('button', { name: 'Cancel job' }).click();
  await expect(waiting.getByText('Status: cancelled')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole('dialog', { name: /Stop all/ })).toHaveCount(0);
  const step = running.getByRole('progressbar', { name: 'Step progress' });
  const stepNow = Number(await step.getAttribute('value'));
  await expect.poll(async () => Number(await step.getAttribute('value')), { timeout: 10_000 }).toBeGreaterThan(stepNow);
  await expect(running.getByText('Status: running')).toBeVisible();

  // The running one is cancelled: the one still waiting goes on to run.
  await running.getByRole('button', { name: 'Cancel job' }).click();
  await expect(page.getByRole('dialog', { name: /Stop all/ })).toHaveCount(0);
  await expect(running.getByText('Status: cancelled')).toBeVisible({ timeout: 15_000 });
  await expect(last.getByText('Status: running')).toBeVisible({ timeout: 15_000 });
  await last.getByRole('button', { name: 'Cancel job' }).click();
  await expect(last.getByText('Status: cancelled')).toBeVisible({ timeout: 15_000 });
});

test('a self-hosted proxy added in Servers is reached through Comfy API v2', async ({ appPage: page, harness }) => {
  // The v2-only demo the harness started (its address is in the harness log).
  const address = /v2-only demo deployment "Deployment" listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(harness.log())?.[1];
  expect(address).toBeDefined();
  await addProxy(page, 'My proxy', address!);
  await waitConnected(page);
  // Without a token the server never asks for a key: no key warning, nothing for the bell.
  await expect(page.getByRole('status', { name: 'Connection' })).not.toHaveText(/API key/);
  await expect(page.getByRole('status', { name: 'Server notices' })).not.toContainText('API key');
  await expect(page.getByRole('button', { name: 'Notifications' })).toHaveAccessibleDescription('no new notices');
  await openWorkflow(page, textToImage({ steps: 2, delay_ms: 0, prompt: 'through my proxy' }));
  await expect(page.getByRole('status').filter({ hasText: 'This server has no node definitions' })).toBeVisible();
  await runButton(page).click();
  await expect(page.getByRole('region', { name: 'Result' }).getByRole('img', { name: /^Result Flowdeck.*\.png$/ })).toBeVisible({ timeout: 30_000 });
});

test('a proxy with a token is asked for the key only after it answered 401, then runs with it', async ({ appPage: page, harness }) => {
  const address = /v2-only demo deployment with a token listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(harness.log())?.[1];
  expect(address).toBeDefined();
  await waitConnected(page);
  await addProxy(page, 'Locked proxy', address!);
  // Its first answer was a 401: now the connection line, the Servers view and the bell say so.
  const connection = page.getByRole('status', { name: 'Connection' });
  await expect(connection).toHaveText(/No API key/, { timeout: 15_000 });
  const notices = page.getByRole('status', { name: 'Server notices' });
  await expect(notices).toContainText('This server needs an API key before it can run workflows.');
  await expect(page.getByRole('button', { name: 'Notifications' })).toHaveAccessibleDescription('1 new');
  // Its action leads to the key field, which takes the token.
  await notices.getByRole('button', { name: 'Set API key' }).click();
  const field = page.getByLabel('API key', { exact: true });
  await expect(field).toBeFocused();
  await field.fill(TOKEN);
  await page.getByRole('button', { name: 'Save key' }).click();
  await expect(page.getByText(`ending in ${TOKEN.slice(-4)}`)).toBeVisible();
  await waitConnected(page);
  await expect(connection).not.toHaveText(/API key/);
  await openWorkflow(page, textToImage({ steps: 2, delay_ms: 0, prompt: 'behind a token' }));
  await runButton(page).click();
  await expect(page.getByRole('region', { name: 'Result' }).getByRole('img', { name: /^Result Flowdeck.*\.png$/ })).toBeVisible({ timeout: 30_000 });
});

test("the Queue view's pool column of a v2-only server lists the jobs sent from here, not an error", async ({ appPage: page }) => {
  await waitConnected(page);
  await page.getByRole('link', { name: 'Servers' }).click();
  const pool = page.getByRole('region', { name: 'Pool', exact: true });
  const addSelect = pool.getByLabel('Add a server');
  for (const name of ['Demo', 'Deployment']) {
    await addSelect.selectOption({ label: name });
    await pool.getByRole('button', { name: 'Add to pool' }).click();
  }
  await pool.getByRole('button', { name: 'Save pool' }).click();
  await expect(pool.getByRole('button', { name: 'Save pool' })).toBeHidden();

  await page.getByRole('link', { name: 'Queue' }).click();
  const column = page.getByRole('region', { name: 'Pool servers' }).getByRole('region', { name: 'Deployment', exact: true });
  await expect(column.getByText(/^No server queue \(Comfy API v2\): (no|\d+) unfinished jobs? sent from here\.$/)).toBeVisible({ timeout: 15_000 });
  await expect(column).not.toContainText('cannot be read');
  await expect(column.getByRole('heading', { name: /^Running \(\d+\)$/ })).toBeVisible();
});

// Problems shown where the user acts: a value below the minimum and a server rejection (400) mark
// the node's input in the form; a node failing while it runs shows the failure on the job card.
import { join } from 'node:path';
import { test, expect } from './fixtures/index';
import { ROOT } from './fixtures/harness';
import { field, newestJob, openWorkflow, overrideCall, recordBridge, runButton, textToImage, waitConnected } from './ui-helpers';

test('a value below the minimum marks the input and nothing is submitted', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, textToImage({}));
  const steps = field(page, '3 DemoSampler', 'steps');
  await steps.fill('0');
  await runButton(page).click();
  await expect(steps).toHaveAttribute('aria-invalid', 'true');
  await expect(steps).toHaveAccessibleDescription(/The smallest allowed value is 1\./);
  await expect(page.getByRole('alert').filter({ hasText: 'Some inputs need attention' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Jobs' }).getByRole('article')).toHaveCount(0);
  // Fixing the value clears the mark.
  await steps.fill('4');
  await expect(steps).not.toHaveAttribute('aria-invalid', 'true');
});

test('a workflow the server rejects (HTTP 400) marks the node and input it names', async ({ appPage: page }) => {
  await waitConnected(page);
  // LoadImage names example.png, which was never uploaded: only the server can tell.
  await openWorkflow(page, join(ROOT, 'resources/workflows/invert-image.json'));
  const image = field(page, '1 LoadImage', 'image');
  await expect(image).toHaveValue('example.png');
  await runButton(page).click();
  await expect(page.getByRole('alert').filter({ hasText: 'The server rejected the workflow' })).toBeVisible();
  await expect(image).toHaveAttribute('aria-invalid', 'true');
  await expect(image).toHaveAccessibleDescription(/Invalid image file: example\.png/);
  await expect(page.getByRole('region', { name: 'Jobs' }).getByRole('article')).toHaveCount(0);
});

test('a node failing at run time shows the explanation, the message, the node and its class', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, textToImage({}));
  await field(page, '3 DemoSampler', 'fail_at_step').fill('2');
  await runButton(page).click();
  const card = newestJob(page);
  await expect(card.getByText('Status: failed')).toBeVisible({ timeout: 20_000 });
  await expect(card.getByText('DemoSampler: deliberate failure at step 2')).toBeVisible();
  await expect(card.getByText('In node 3 (Demo Sampler), class DemoSampler')).toBeVisible();
  await expect(card.getByText('Error type: RuntimeError')).toBeVisible();
  // The plain-words explanation comes first, in bold.
  await expect(card.locator('.what')).not.toBeEmpty();
  // The server's traceback is behind a disclosure: hidden until opened.
  const traceback = card.locator('details', { has: page.getByText('Traceback', { exact: true }) });
  await expect(traceback.locator('pre')).toBeHidden();
  await traceback.getByText('Traceback', { exact: true }).click();
  await expect(traceback.locator('pre')).toContainText('File ');
  await expect(card.getByRole('button', { name: 'Cancel job' })).toHaveCount(0);
});

test('credits (402) and an inactive subscription (429) are explained where Run was pressed', async ({ appPage: page }) => {
  // The demo service cannot be made to answer 402/429 from here: the page's bridge answers
  // run.submit with the contract's envelopes for those statuses instead.
  await recordBridge(page);
  await waitConnected(page);
  await openWorkflow(page, textToImage({}));
  await page.getByRole('group', { name: '3 DemoSampler' }).waitFor();

  await overrideCall(page, 'run.submit', { ok: false, error: { code: 'subscription_inactive', message: 'The subscription is not active (HTTP 429).' } });
  await runButton(page).click();
  const inactive = page.getByRole('alert').filter({ hasText: 'Subscription inactive' });
  await expect(inactive).toContainText('The subscription is not active (HTTP 429).');
  await expect(inactive).toContainText(/Renew it on the platform/);

  await overrideCall(page, 'run.submit', { ok: false, error: { code: 'insufficient_credits', message: 'The account has insufficient credits (HTTP 402).' } });
  await runButton(page).click();
  const credits = page.getByRole('alert').filter({ hasText: 'Not enough credits' });
  await expect(credits).toContainText(/add credits/);
  await expect(inactive).toHaveCount(0);
  // Neither sends the user to the key field.
  await expect(page.getByRole('link', { name: 'Run', exact: true })).toHaveAttribute('aria-current', 'page');
});

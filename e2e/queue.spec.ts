// The queue: a pending job cancelled from its card and another from the Queue view, and the
// running one interrupted; every card ends "cancelled" and the queue empties.
import { test, expect } from './fixtures/index';
import { field, openWorkflow, runButton, textToImage, waitConnected, unfoldRuns } from './ui-helpers';

test('cancel pending jobs (card and "Cancel selected") and interrupt the running one', async ({ appPage: page }) => {
  await waitConnected(page);
  // 200 slow steps: the first job keeps running while the others wait.
  await openWorkflow(page, textToImage({ steps: 200, delay_ms: 10000 }));
  await field(page, '3 DemoSampler', 'steps').waitFor();
  await page.getByLabel('Repeat', { exact: true }).fill('3');
  await expect(page.getByLabel('New seed for each repeat')).toBeChecked();
  await runButton(page).click();
  await unfoldRuns(page);

  const cards = page.getByRole('region', { name: 'Jobs' }).getByRole('article');
  await expect(cards).toHaveCount(3);
  // Newest first: the last submitted is pending, the first submitted runs.
  const [third, second, first] = [cards.nth(0), cards.nth(1), cards.nth(2)];
  await expect(first.getByText('Status: running')).toBeVisible({ timeout: 15_000 });
  await expect(third.getByText('Status: waiting in the queue')).toBeVisible();
  const ids = await Promise.all([first, second, third].map((c) => c.getAttribute('data-prompt-id')));
  expect(new Set(ids).size).toBe(3);

  // A pending job cancelled from its own card.
  await third.getByRole('button', { name: 'Cancel job' }).click();
  await expect(third.getByRole('button', { name: 'Cancel job' })).toHaveCount(0);
  // The server confirms a cancelled pending job only when main next checks the job (it has no event).
  await expect(third.getByText('Status: cancelled')).toBeVisible({ timeout: 30_000 });

  // The other pending job cancelled from the Queue view.
  await page.getByRole('link', { name: 'Queue' }).click();
  const running = page.getByRole('group', { name: /^Running/ });
  const pending = page.getByRole('group', { name: /^Pending/ });
  await expect(running.getByRole('checkbox')).toHaveCount(1);
  await expect(running.getByRole('checkbox')).toHaveAccessibleName(new RegExp(ids[0]!));
  await expect(pending.getByRole('checkbox')).toHaveCount(1);
  const pendingBox = pending.getByRole('checkbox', { name: new RegExp(ids[1]!) });
  await pendingBox.check();
  await page.getByRole('button', { name: 'Cancel selected' }).click();
  await expect(pending.getByRole('checkbox')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Cancel selected' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Clear pending' })).toBeDisabled();

  // The running job interrupted.
  await page.getByRole('button', { name: 'Interrupt' }).click();
  await expect(running.getByRole('checkbox')).toHaveCount(0, { timeout: 15_000 });

  await page.getByRole('link', { name: 'Run', exact: true }).click();
  for (const card of [first, second, third]) await expect(card.getByText('Status: cancelled')).toBeVisible({ timeout: 30_000 });
});

test('"Clear pending" empties the waiting list and leaves the running job alone', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, textToImage({ steps: 200, delay_ms: 10000 }));
  await field(page, '3 DemoSampler', 'steps').waitFor();
  await page.getByLabel('Repeat', { exact: true }).fill('3');
  await runButton(page).click();
  await unfoldRuns(page);
  const cards = page.getByRole('region', { name: 'Jobs' }).getByRole('article');
  // The earlier test's jobs are still listed below the new ones.
  await expect(cards.nth(2).getByText('Status: running')).toBeVisible({ timeout: 15_000 });

  await page.getByRole('link', { name: 'Queue' }).click();
  const pending = page.getByRole('group', { name: /^Pending/ });
  await expect(pending.getByRole('checkbox')).toHaveCount(2);
  await page.getByRole('button', { name: 'Clear pending' }).click();
  await expect(pending.getByRole('checkbox')).toHaveCount(0);
  await expect(page.getByRole('group', { name: /^Running/ }).getByRole('checkbox')).toHaveCount(1);
  // Leave nothing running behind.
  await page.getByRole('button', { name: 'Interrupt' }).click();
  await expect(page.getByRole('group', { name: /^Running/ }).getByRole('checkbox')).toHaveCount(0, { timeout: 15_000 });
});

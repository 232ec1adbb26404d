// The main path: add a demo server, open the text-to-image workflow, edit inputs (including a
// seed beyond 2^53), run it, watch progress and previews advance, and see the output appear.
import { join } from 'node:path';
import { test, expect } from './fixtures/index';
import { ROOT } from './fixtures/harness';
import { bridgeLog, field, property, newestJob, openWorkflow, previewFingerprint, recordBridge, runButton, TEXT_TO_IMAGE, waitConnected } from './ui-helpers';

test('a demo profile runs text-to-image with live progress, changing previews and the output', async ({ appPage: page }) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // Record what the page submits, to check the seed travels exactly.
  await recordBridge(page);

  // Add a demo profile through the form and make it active.
  await page.getByRole('link', { name: 'Servers' }).click();
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add server' });
  await dialog.getByLabel('Server name').fill('My demo');
  await dialog.getByLabel('Server kind').selectOption('demo');
  await expect(dialog.getByLabel('Server URL')).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Save server' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('radio', { name: 'My demo' })).toBeChecked();
  await waitConnected(page);

  await openWorkflow(page, TEXT_TO_IMAGE);
  const sampler = page.getByRole('group', { name: '3 DemoSampler' });
  await expect(sampler).toBeVisible();
  // Widgets by type: multiline text, integer with its range, combo, and the link read-only.
  await expect(field(page, '3 DemoSampler', 'prompt')).toHaveJSProperty('tagName', 'TEXTAREA');
  await expect(field(page, '3 DemoSampler', 'steps')).toHaveAttribute('min', '1');
  await expect(field(page, '3 DemoSampler', 'sampler_name')).toHaveJSProperty('tagName', 'SELECT');
  // A link is a chip naming its source node (not an editable field).
  await expect(field(page, '9 SaveImage', 'images')).toHaveText(/from Demo Sampler/);
  await expect(field(page, '9 SaveImage', 'images')).toHaveJSProperty('tagName', 'BUTTON');

  // Edit inputs: a seed of 2^64-1 (beyond a JS number), more and slower steps so frames are seen.
  const seed = field(page, '3 DemoSampler', 'seed');
  await seed.fill('18446744073709551615');
  await field(page, '3 DemoSampler', 'prompt').fill('a desert at night');
  await field(page, '3 DemoSampler', 'steps').fill('12');
  await field(page, '3 DemoSampler', 'delay_ms').fill('4000');
  await field(page, '3 DemoSampler', 'sampler_name').selectOption('ddim');

  await runButton(page).click();
  const card = newestJob(page);
  await expect(card).toBeVisible();
  await expect(card.getByText('Status: running')).toBeVisible({ timeout: 15_000 });
  await expect(card.getByText('Running Demo Sampler')).toBeVisible();

  // Progress advances and the preview changes at least twice.
  const fingerprints = new Set<string>();
  const steps = new Set<number>();
  await expect
    .poll(
      async () => {
        const print = await previewFingerprint(card);
        if (print) fingerprints.add(print);
        const step = await property(card.getByRole('progressbar', { name: 'Step progress' }), 'value', 200).catch(() => null);
        if (step !== null) steps.add(step);
        return fingerprints.size >= 3 && steps.size >= 2;
      },
      { timeout: 30_000, intervals: [50] },
    )
    .toBe(true);
  // Distinct frames, not only distinct URLs: the pixels changed too.
  expect(new Set([...fingerprints].map((f) => f.split(' ')[1])).size).toBeGreaterThanOrEqual(3);

  await expect(card.getByText('Status: done')).toBeVisible({ timeout: 30_000 });
  await expect(card.getByRole('progressbar', { name: 'Overall progress' })).toHaveAttribute('aria-valuetext', '2 of 2 nodes');
  const output = card.getByRole('img', { name: /^Output Flowdeck.*\.png$/ });
  await expect(output).toBeVisible();
  await expect.poll(() => property(output, 'naturalWidth')).toBe(256);
  // The preview is gone with the job, and its bitmap closed with it.
  await expect(card.getByRole('img', { name: 'Live preview' })).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __flowdeckPreviewStats: { liveBitmaps: number } }).__flowdeckPreviewStats.liveBitmaps)).toBe(0);

  // The seed field still shows every digit, and the workflow went out with every digit.
  await expect(seed).toHaveValue('18446744073709551615');
  const submits = (await bridgeLog(page)).filter((r) => r.kind === 'call' && r.name === 'run.submit');
  expect(submits).toHaveLength(1);
  const workflowJson = (JSON.parse(submits[0]!.text) as { workflowJson: string }).workflowJson;
  expect(workflowJson).toContain('"seed":18446744073709551615');
  expect(workflowJson).toContain('"prompt":"a desert at night"');
  expect(workflowJson).toContain('"images":["3",0]');
  expect(pageErrors).toEqual([]);
});

test('video and audio outputs play in the card', async ({ appPage: page }) => {
  await waitConnected(page);
  await openWorkflow(page, join(ROOT, 'resources/workflows/video-and-audio.json'));
  await page.getByRole('group', { name: '2 DemoVideo' }).waitFor();
  await runButton(page).click();
  const card = newestJob(page);
  await expect(card.getByText('Status: done')).toBeVisible({ timeout: 30_000 });
  const video = card.locator('video[aria-label^="Output "]');
  const audio = card.locator('audio[aria-label^="Output "]');
  await expect(video).toHaveCount(1);
  await expect(audio).toHaveCount(1);
  // The players have the bytes: their durations are known once the metadata loads.
  const duration = (locator: typeof video) => locator.evaluate((el) => Number((el as unknown as { duration: number }).duration));
  await expect.poll(() => duration(audio)).toBeCloseTo(1.5, 1);
  await expect.poll(() => duration(video)).toBeGreaterThan(0);
  await expect(video).toHaveAttribute('controls', '');
});

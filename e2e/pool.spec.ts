// The pool through the app's UI: the harness's built-in demo service plus a second demo service
// (local flavour) this spec starts, both made the pool in Servers (a second profile at the same
// address is refused with its reason; order changed with Move up); a hot folder set to "Run on:
// Pool" runs dropped images on both servers (the files table names each one's server) with the
// pool's status line shown; the Queue view shows one column per pool server; the Run form's
// "Run on: Pool" with repeat 2 sends the two runs to the two servers, each with its job card.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { PNG } from 'pngjs';
import { DemoService } from '../src/main/demo';
import { expect, test } from './fixtures/index';
import { openWorkflow, runButton, TEXT_TO_IMAGE, waitConnected, unfoldRuns } from './ui-helpers';

const INVERT_WORKFLOW = {
  '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'pool' } },
};
const FILES = 6;

let second: DemoService;
let root = '';

test.beforeAll(async () => {
  second = new DemoService({ flavour: 'local', port: 0, timeScale: 0.3 });
  await second.start();
  root = mkdtempSync(join(tmpdir(), 'flowdeck-poolui-'));
});

test.afterAll(async () => {
  await second?.stop();
  rmSync(root, { recursive: true, force: true });
});

function solidPng(shade: number): Buffer {
  const png = new PNG({ width: 6, height: 4 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([shade, 255 - shade, 90, 255], i);
  return PNG.sync.write(png);
}

async function addLocalServer(page: Page, name: string, url: string): Promise<void> {
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add server' });
  await dialog.getByLabel('Server name').fill(name);
  await dialog.getByLabel('Server kind').selectOption('local');
  await dialog.getByLabel('Server URL').fill(url);
  await dialog.getByLabel('Use this server now').uncheck();
  await dialog.getByRole('button', { name: 'Save server' }).click();
  await expect(dialog).toBeHidden();
}

test('a pool of two servers: set in Servers, chosen in the hot folder form, used for its files, shown in the Queue', async ({ appPage: page }) => {
  test.setTimeout(120_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await waitConnected(page);

  // ---- Servers: the pool ----
  await page.getByRole('link', { name: 'Servers' }).click();
  await addLocalServer(page, 'GPU 2', second.url);
  await addLocalServer(page, 'GPU 2 again', `${second.url}/`);
  const pool = page.getByRole('region', { name: 'Pool', exact: true });
  await expect(pool.getByText('The pool is empty.')).toBeVisible();
  const addSelect = pool.getByLabel('Add a server');
  await addSelect.selectOption({ label: 'GPU 2' });
  await pool.getByRole('button', { name: 'Add to pool' }).click();
  await addSelect.selectOption({ label: 'Demo' });
  await pool.getByRole('button', { name: 'Add to pool' }).click();
  await addSelect.selectOption({ label: 'GPU 2 again' });
  await pool.getByRole('button', { name: 'Add to pool' }).click();
  const servers = pool.getByRole('list', { name: 'Pool servers' }).getByRole('listitem');
  await expect(servers).toHaveCount(3);
  // The same server twice is refused, with the reason, and nothing is saved.
  await pool.getByRole('button', { name: 'Save pool' }).click();
  await expect(pool.getByRole('alert')).toHaveText(/"GPU 2 again" and "GPU 2" are the same server/);
  await pool.getByRole('button', { name: 'Remove GPU 2 again from the pool' }).click();
  // Demo first: the preferred server.
  await expect(pool.getByRole('button', { name: 'Move GPU 2 up' })).toBeDisabled();
  await pool.getByRole('button', { name: 'Move Demo up' }).click();
  await expect(servers.nth(0)).toContainText('Demo');
  await expect(servers.nth(1)).toContainText('GPU 2');
  await expect(pool.getByLabel('Jobs at once on Demo')).toHaveValue('1');
  await pool.getByLabel('Jobs at once on GPU 2').fill('0');
  await pool.getByRole('button', { name: 'Save pool' }).click();
  await expect(pool.getByText('Jobs at once must be a whole number from 1 to 64.')).toBeVisible();
  await pool.getByLabel('Jobs at once on GPU 2').fill('1');
  await pool.getByRole('button', { name: 'Save pool' }).click();
  await expect(pool.getByRole('button', { name: 'Save pool' })).toBeHidden();
  await expect(pool.getByRole('alert')).toHaveCount(0);

  // ---- Hot folders: "Run on" ----
  const inputDir = join(root, 'in');
  const outputDir = join(root, 'out');
  mkdirSync(inputDir, { recursive: true });
  const workflowPath = join(root, 'invert.json');
  writeFileSync(workflowPath, JSON.stringify(INVERT_WORKFLOW));
  await page.getByRole('link', { name: 'Hot folders' }).click();
  await page.getByRole('button', { name: 'Add hot folder' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add hot folder' });
  const runOn = dialog.getByRole('group', { name: 'Run on' });
  await expect(runOn.getByRole('radio', { name: /^Active server/ })).toBeChecked();
  await expect(runOn).toContainText('Demo, GPU 2');
  await runOn.getByRole('radio', { name: /^Pool/ }).check();
  await dialog.getByLabel('Name', { exact: true }).fill('Pooled');
  await dialog.getByLabel('Input folder', { exact: true }).fill(inputDir);
  await dialog.getByLabel('Output folder', { exact: true }).fill(outputDir);
  await dialog.getByLabel('Workflow file', { exact: true }).fill(workflowPath);
  await dialog.getByRole('button', { name: 'Load workflow' }).click();
  await expect(dialog.getByLabel('Image input')).toHaveValue('1.image');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(dialog).toBeHidden();

  for (let i = 0; i < FILES; i += 1) writeFileSync(join(inputDir, `img${i}.png`), solidPng(20 * i));
  const table = page.getByRole('table', { name: 'Files of Pooled' });
  await expect(table.getByRole('cell', { name: 'done', exact: true })).toHaveCount(FILES, { timeout: 60_000 });
  // Each file names its server; both servers ran some.
  await expect(table.getByRole('columnheader', { name: 'Server' })).toBeVisible();
  const serverCells = await table.locator('td.server').allTextContents();
  expect(serverCells).toHaveLength(FILES);
  expect(new Set(serverCells)).toEqual(new Set(['Demo', 'GPU 2']));
  expect(second.stats.submissions.size).toBeGreaterThan(0);
  // The pool's status line: throughput and jobs per server.
  const status = page.getByRole('main').getByRole('status', { name: 'Pool status' });
  await expect(status).toContainText('jobs/min');
  await expect(status).toContainText(/Demo: 0\/\d+ running, \d+ done/);
  await expect(status).toContainText(/GPU 2: 0\/1 running, \d+ done/);
  await expect(page.getByRole('contentinfo', { name: 'Status bar' }).getByLabel('Pool status')).toContainText('on GPU 2');

  // Editing the folder shows the choice kept.
  await page.getByRole('article', { name: 'Pooled' }).getByRole('button', { name: 'Edit', exact: true }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Pooled' });
  await expect(edit.getByRole('group', { name: 'Run on' }).getByRole('radio', { name: /^Pool/ })).toBeChecked();
  await edit.getByRole('button', { name: 'Cancel' }).click();

  // ---- Queue: one column per pool server ----
  await page.getByRole('link', { name: 'Queue' }).click();
  const columns = page.getByRole('region', { name: 'Pool servers' });
  await expect(columns.getByRole('region')).toHaveCount(2);
  for (const name of ['Demo', 'GPU 2']) {
    const column = columns.getByRole('region', { name, exact: true });
    await expect(column.getByRole('heading', { name: 'Running (0)' })).toBeVisible();
    await expect(column.getByRole('heading', { name: 'Pending (0)' })).toBeVisible();
  }

  // ---- Run: "Run on: Pool" with a repeat count ----
  await openWorkflow(page, TEXT_TO_IMAGE);
  const runOnForm = page.getByRole('group', { name: 'Run on' });
  await expect(runOnForm.getByRole('radio', { name: 'Active server' })).toBeChecked();
  await expect(runOnForm.getByRole('radio', { name: 'Pool' })).toBeEnabled();
  await page.getByRole('spinbutton', { name: 'Repeat' }).fill('2');
  // Keyboard: from "Active server" the arrow key moves the choice to "Pool".
  await runOnForm.getByRole('radio', { name: 'Active server' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(runOnForm.getByRole('radio', { name: 'Pool' })).toBeChecked();
  await expect(runOnForm).toContainText('each run to the least busy of Demo, GPU 2');
  const submissionsBefore = [...second.stats.submissions.values()].reduce((a, b) => a + b, 0);
  await runButton(page).click();
  await unfoldRuns(page);
  // The hot folder's jobs are in the panel too; the Run form's are "from this window".
  const cards = page.getByRole('region', { name: 'Jobs' }).getByRole('article').filter({ hasText: 'from this window' });
  await expect(cards).toHaveCount(2, { timeout: 30_000 });
  await expect(cards.filter({ hasText: 'Status: done' })).toHaveCount(2, { timeout: 60_000 });
  // One of the two went to GPU 2 (the Demo takes one job at a time), and its card says so.
  await expect(cards.filter({ hasText: 'on GPU 2' })).toHaveCount(1);
  expect([...second.stats.submissions.values()].reduce((a, b) => a + b, 0) - submissionsBefore).toBe(1);
  expect(pageErrors).toEqual([]);
});

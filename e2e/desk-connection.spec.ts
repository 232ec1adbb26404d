// The connection told truthfully, each state in its own words with its own action: no key, key
// rejected, no credits, subscription inactive, unreachable, not a workflow server, connected.
// Also: Test connection without a key, removing the active server safely, a dismissed notice that
// stays dismissed across server switches, and notices that never cover the Run controls at 800×600.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect } from './fixtures/index';
import { openWorkflow, runButton, textToImage, waitConnected } from './ui-helpers';
import { DemoService } from '../src/main/demo';
import type { Page } from '@playwright/test';

const GOOD = 'fdk-good-1f2e3d4c5b6a7988';
const BROKE = 'fdk-broke-0a9b8c7d6e5f4433';
const LAPSED = 'fdk-lapsed-77aa66bb55cc4411';

let cloud: DemoService;
let notWorkflow: Server;
let notWorkflowUrl = '';

test.beforeAll(async () => {
  cloud = new DemoService({ flavour: 'cloud', port: 0, apiKey: GOOD, timeScale: 0.05 });
  await cloud.start();
  cloud.setKeyState(BROKE, 'no_credits');
  cloud.setKeyState(LAPSED, 'inactive');
  // Something that answers on HTTP, but is no workflow server (a plain web page).
  notWorkflow = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>Router admin</title><p>Welcome</p>');
  });
  await new Promise<void>((done) => notWorkflow.listen(0, '127.0.0.1', done));
  notWorkflowUrl = `http://127.0.0.1:${(notWorkflow.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await cloud?.stop();
  await new Promise((done) => notWorkflow?.close(done));
});

async function addServer(page: Page, name: string, kind: 'cloud' | 'local', url: string): Promise<void> {
  await page.getByRole('link', { name: 'Servers' }).click();
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add server' });
  await dialog.getByLabel('Server name').fill(name);
  await dialog.getByLabel('Server kind').selectOption(kind);
  await dialog.getByLabel('Server URL').fill(url);
  // Asked for: a new cloud server is not used at once by default (it has no key yet).
  await dialog.getByLabel('Use this server now').check();
  await dialog.getByRole('button', { name: 'Save server' }).click();
  await expect(page.getByRole('radio', { name })).toBeChecked();
}

async function saveKey(page: Page, key: string): Promise<void> {
  await page.getByRole('link', { name: 'Servers' }).click();
  await page.getByLabel('API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Save key' }).click();
  await expect(page.getByText(`ending in ${key.slice(-4)}`)).toBeVisible();
}

function indicator(page: Page) {
  return page.getByRole('status', { name: 'Connection' });
}

test('each state has its own words and action', async ({ appPage: page }) => {
  await waitConnected(page);
  await addServer(page, 'Cloud', 'cloud', cloud.url);

  // No key: said at once, with the action that fixes it; Test connection still checks the server.
  await expect(indicator(page)).toHaveText(/No API key/);
  await expect(page.getByRole('contentinfo', { name: 'Status bar' }).getByRole('button', { name: 'Set API key' })).toBeVisible();
  await page.getByRole('button', { name: 'Test connection' }).click();
  const result = page.getByRole('definition');
  await expect(result.first()).toHaveText('yes'); // reachable, found without a key
  await expect(page.getByRole('list', { name: 'Skipped checks' })).toContainText('the key check: no API key is set');

  // Key rejected.
  await saveKey(page, 'fdk-wrong-00000000000000');
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(indicator(page)).toHaveText(/Key rejected/);
  await expect(indicator(page)).not.toHaveText(/Connected/);

  // The right key: connected.
  await saveKey(page, GOOD);
  await expect(indicator(page)).toHaveText(/Connected/, { timeout: 20_000 });

  // No credits, and an inactive subscription: learnt from the submit's answer.
  await saveKey(page, BROKE);
  await openWorkflow(page, textToImage({}));
  await runButton(page).click();
  await expect(indicator(page)).toHaveText(/No credits/, { timeout: 15_000 });
  await saveKey(page, LAPSED);
  await page.getByRole('link', { name: 'Run', exact: true }).click();
  await runButton(page).click();
  await expect(indicator(page)).toHaveText(/Subscription inactive/, { timeout: 15_000 });
  // A run that goes through clears it.
  await saveKey(page, GOOD);
  await page.getByRole('link', { name: 'Run', exact: true }).click();
  await runButton(page).click();
  await expect(indicator(page)).toHaveText(/Connected/, { timeout: 20_000 });

  // Not a workflow server, and a server that does not answer.
  await addServer(page, 'Router', 'local', notWorkflowUrl);
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(indicator(page)).toHaveText(/Not a workflow server/);
  await expect(page.getByText(/Not a workflow server: Something answers at this address/)).toBeVisible();
  await addServer(page, 'Gone', 'local', 'http://127.0.0.1:9');
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(indicator(page)).toHaveText(/Unreachable/, { timeout: 20_000 });
});

test('a dismissed server notice stays dismissed when the active server changes', async ({ appPage: page }) => {
  await page.getByRole('link', { name: 'Servers' }).click();
  await page.getByRole('radio', { name: 'Demo' }).check();
  await waitConnected(page);
  await addServer(page, 'Keyless', 'cloud', cloud.url);
  const notices = page.getByRole('status', { name: 'Server notices' });
  await expect(notices).toContainText('No API key');
  await notices.getByRole('button', { name: 'Dismiss' }).click();
  await expect(notices).not.toContainText('No API key');
  await page.getByRole('radio', { name: 'Demo' }).check();
  await waitConnected(page);
  await page.getByRole('radio', { name: 'Keyless' }).check();
  await expect(indicator(page)).toHaveText(/No API key/);
  await expect(notices).not.toContainText('No API key');
});

test('removing the active server asks first and never makes a keyless server active', async ({ appPage: page }) => {
  await page.getByRole('link', { name: 'Servers' }).click();
  await page.getByRole('radio', { name: 'Demo' }).check();
  await waitConnected(page);
  // Leave two cloud servers: one with a key (active), one without.
  for (const name of ['Keyless', 'Cloud', 'Router', 'Gone']) {
    const remove = page.getByRole('button', { name: `Remove ${name}` });
    if ((await remove.count()) === 0) continue;
    await remove.click();
    await page.getByRole('dialog', { name: 'Remove server?' }).getByRole('button', { name: 'Remove server' }).click();
    await expect(remove).toHaveCount(0);
  }
  await addServer(page, 'No key', 'cloud', cloud.url);
  await addServer(page, 'Paid', 'cloud', cloud.url);
  await saveKey(page, GOOD);
  await page.getByRole('button', { name: 'Remove Demo' }).click();
  await page.getByRole('dialog', { name: 'Remove server?' }).getByRole('button', { name: 'Remove server' }).click();
  await expect(page.getByRole('radio', { name: 'Demo' })).toHaveCount(0);

  // Cancel keeps it.
  await page.getByRole('button', { name: 'Remove Paid' }).click();
  const ask = page.getByRole('dialog', { name: 'Remove server?' });
  await expect(ask).toContainText('It is the active server');
  await expect(ask.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('radio', { name: 'Paid' })).toBeChecked();

  await page.getByRole('button', { name: 'Remove Paid' }).click();
  await ask.getByRole('button', { name: 'Remove server' }).click();
  await expect(page.getByRole('radio', { name: 'Paid' })).toHaveCount(0);
  await expect(page.getByRole('radio', { name: 'No key' })).not.toBeChecked();
  await expect(indicator(page)).toHaveText(/No server/);
  await expect(page.getByRole('contentinfo', { name: 'Status bar' }).getByRole('button', { name: 'Choose server' })).toBeVisible();
});

test('notices never cover the Run controls at 800×600', async ({ appPage: page }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  await page.getByRole('link', { name: 'Servers' }).click();
  await page.getByRole('radio', { name: 'No key' }).check();
  await expect(page.getByRole('status', { name: 'Server notices' })).toContainText('No API key');
  await openWorkflow(page, textToImage({}));
  for (const control of [page.getByRole('button', { name: 'Open workflow' }), runButton(page)]) {
    await control.scrollIntoViewIfNeeded();
    // A trial click fails when anything else would receive it.
    await control.click({ trial: true, timeout: 3000 });
  }
});
